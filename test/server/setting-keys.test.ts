import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { call, serve } from '../helpers/index.ts';

suite('settings projdex reads', () => {
  test('GET /api/setting-keys lists them; a value projdex cannot use is a 400 and changes nothing', async (t) => {
    const { url } = await serve(t);
    const keys = (await call(`${url}/api/setting-keys`)).body;
    assert.deepEqual(keys.map((k: { key: string }) => k.key), ['watch']);
    assert.match(keys[0].description, /^Rescan projects when their files change/);
    assert.equal((await call(`${url}/api/settings/watch`, 'PUT', { value: 'on' })).status, 200);
    const refused = await call(`${url}/api/settings/watch`, 'PUT', { value: 'maybe' });
    assert.deepEqual([refused.status, refused.body], [400, { error: 'watch must be on or off (also true/false, yes/no, 1/0), got "maybe"' }]);
    assert.deepEqual((await call(`${url}/api/settings`)).body, { watch: 'on' }, 'the old value stays');
    for (const value of ['off', 'FALSE', 'yes', 1, true]) {
      assert.equal((await call(`${url}/api/settings/watch`, 'PUT', { value })).status, 200, String(value));
    }
    // A key projdex does not read stores any string, as the spec has it.
    assert.equal((await call(`${url}/api/settings/watchlist`, 'PUT', { value: 'maybe' })).status, 200);
  });
});
