import type { ScanContext } from '../rules/types.ts';

// Checked in order: the most specific stack wins (a Next app also depends on react; a Nuxt app on vue).
const NODE_STACKS: ReadonlyArray<readonly [stack: string, packages: readonly string[]]> = [
  ['next', ['next']],
  ['nuxt', ['nuxt', 'nuxt3']],
  ['sveltekit', ['@sveltejs/kit']],
  ['astro', ['astro']],
  ['remix', ['@remix-run/dev', '@remix-run/node', '@remix-run/react']],
  ['gatsby', ['gatsby']],
  ['angular', ['@angular/core']],
  ['nestjs', ['@nestjs/core']],
  ['electron', ['electron']],
  ['create-react-app', ['react-scripts']],
  ['vite', ['vite']],
  ['express', ['express']],
  ['fastify', ['fastify']],
  ['koa', ['koa']],
  ['hono', ['hono']],
  ['react', ['react']],
  ['vue', ['vue']],
  ['svelte', ['svelte']],
];

const PYTHON_STACKS: ReadonlyArray<readonly [stack: string, pattern: RegExp]> = [
  ['django', /(^|[^\w-])django([^\w-]|$)/i],
  ['fastapi', /(^|[^\w-])fastapi([^\w-]|$)/i],
  ['flask', /(^|[^\w-])flask([^\w-]|$)/i],
];
const PYTHON_MANIFESTS = ['pyproject.toml', 'requirements.txt', 'setup.py', 'setup.cfg', 'Pipfile'];

/**
 * The project's main stack, judged from manifests at its root: a web framework where one is declared,
 * else the language's toolchain (`node`, `python`, `go`, `rust`, ...). Null when nothing is recognised.
 */
export async function detectStack(ctx: ScanContext): Promise<string | null> {
  const pkg = await ctx.readJson('package.json');
  if (isRecord(pkg)) {
    const deps = new Set<string>();
    for (const field of ['dependencies', 'devDependencies', 'peerDependencies']) {
      const value = pkg[field];
      if (isRecord(value)) for (const name of Object.keys(value)) deps.add(name);
    }
    for (const [stack, packages] of NODE_STACKS) if (packages.some((p) => deps.has(p))) return stack;
  }
  if (ctx.has('manage.py')) return 'django';
  for (const manifest of PYTHON_MANIFESTS) {
    const text = await ctx.read(manifest);
    if (text === undefined) continue;
    for (const [stack, pattern] of PYTHON_STACKS) if (pattern.test(text)) return stack;
  }
  if (ctx.has('go.mod')) return 'go';
  if (ctx.has('Cargo.toml')) return 'rust';
  const gemfile = await ctx.read('Gemfile');
  if (gemfile !== undefined) return /^\s*gem\s+['"]rails['"]/m.test(gemfile) ? 'rails' : 'ruby';
  const composer = await ctx.read('composer.json');
  if (composer !== undefined) return /"laravel\/framework"/.test(composer) ? 'laravel' : /"symfony\//.test(composer) ? 'symfony' : 'php';
  const jvm = (await ctx.read('pom.xml')) ?? (await ctx.read('build.gradle')) ?? (await ctx.read('build.gradle.kts'));
  if (jvm !== undefined) return /spring-boot/.test(jvm) ? 'spring-boot' : 'java';
  const mix = await ctx.read('mix.exs');
  if (mix !== undefined) return /:phoenix\b/.test(mix) ? 'phoenix' : 'elixir';
  if (PYTHON_MANIFESTS.some((m) => ctx.has(m))) return 'python';
  if (isRecord(pkg)) return 'node';
  if (ctx.has('deno.json') || ctx.has('deno.jsonc')) return 'deno';
  return null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
