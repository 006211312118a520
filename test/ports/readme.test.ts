import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { shellCommands } from '../../src/ports/readme.ts';
import { scan } from '../../src/scan/index.ts';
import { makeTree } from '../helpers/index.ts';

// Shapes from real READMEs: a ```console block with `$ ` prompts and the server's output under it, a ```bash
// block per step, ```sh with a line continued by `\`, a Python block showing the app, an unlabelled block of output.
const README = [
  '# Demo', '', 'Run the app:', '', '```console', '$ export FLASK_APP=app.py', '$ flask run',
  ' * Running on http://127.0.0.1:5000/ (Press CTRL+C to quit)', '```', '',
  'The docs:', '', '```bash', 'pip install mkdocs', 'mkdocs serve', '```', '',
  'A database for development:', '', '```sh', 'docker run -e POSTGRES_PASSWORD=dev \\', '  -p 5433:5432 postgres:16', '```', '',
  '```python', 'app.run(port=5999)', '```', '', '```', 'tilt up', '```', '',
  '```bash', '# npm run dev starts the package script, read from package.json', 'npm run dev', '```', '',
].join('\n');

suite('README start commands', () => {
  test('shellCommands: shell blocks only, prompts stripped, output and comments skipped, continuations joined', () => {
    assert.deepEqual(shellCommands(README), [
      'export FLASK_APP=app.py', 'flask run', 'pip install mkdocs', 'mkdocs serve',
      'docker run -e POSTGRES_PASSWORD=dev  -p 5433:5432 postgres:16', 'npm run dev',
    ]);
    // A longer fence holds a shorter one; an unclosed block ends the text.
    assert.deepEqual(shellCommands('````md\n```bash\nflask run\n```\n````\n```sh\nmkdocs serve'), ['mkdocs serve']);
  });

  test('on a tree: defaults and docker run host ports from READMEs; a dotenv port replaces the default; a library README is not read', async (t) => {
    const root = makeTree(t, {
      'README.md': README,
      'package.json': JSON.stringify({ scripts: { dev: 'node server.js' } }),
      'backend/README.md': '```shell\n$ python manage.py runserver\n```\n',
      'backend/manage.py': '',
      'docs/README.md': '```bash\nflask run\n```\n',
      // `flask run` in docs/ reads docs/.flaskenv: its port replaces Flask's 5000 there, not at the root.
      'docs/.flaskenv': 'FLASK_RUN_PORT=5050\n',
      // A gem's README shows the reader's own app: `rackup -p 4567` is not the library's port.
      'gems/rackish/rackish.gemspec': 'Gem::Specification.new { |s| s.name = "rackish" }\n',
      'gems/rackish/README.md': '```shell\nrackup -p 4567\n```\n',
    });
    const result = await scan(root);
    assert.deepEqual(result.ports.map((p) => [p.port, p.script_name, p.config_source]), [
      [5000, null, 'README.md'],
      [5050, null, 'docs/.flaskenv'],
      [5433, null, 'README.md'],
      [8000, null, 'README.md'],
      [8000, null, 'backend/README.md'],
    ]);
  });
});
