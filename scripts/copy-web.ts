// Part of `npm run build`: the dashboard's files (plain HTML, CSS and ES modules, no build step of their own)
// are copied next to the compiled server, where src/api/static.ts looks for them (dist/web beside dist/api).
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
rmSync(join(root, 'dist', 'web'), { recursive: true, force: true });
cpSync(join(root, 'src', 'web'), join(root, 'dist', 'web'), { recursive: true });
