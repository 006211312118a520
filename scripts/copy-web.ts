// Part of `npm run build`: the dashboard's files (plain HTML, CSS and ES modules, no build step of their own)
// are copied next to the compiled server, where src/server/api/static.ts looks for them (dist/server/web beside dist/server/api).
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
rmSync(join(root, 'dist', 'server', 'web'), { recursive: true, force: true });
cpSync(join(root, 'src', 'server', 'web'), join(root, 'dist', 'server', 'web'), { recursive: true });
