// Run first by `npm start` and `npm test` (plain JS, so any Node can load it): with install scripts
// disabled, the pinned Node 24 (the `node` devDependency) is never unpacked and npm's scripts fall back to
// the machine's Node, which cannot load .ts files. Say so in one sentence instead of a stack trace.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 13)) {
  process.stderr.write(`projdex's npm scripts need Node.js 22.13 or newer and found Node.js ${process.versions.node}: `
    + 'the pinned Node 24 (the `node` devDependency) was not installed, probably because install scripts are disabled; '
    + 'run `npm rebuild node --ignore-scripts=false` in this clone, then the same npm command again.\n');
  process.exit(1);
}
