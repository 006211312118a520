import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { discoverOthers } from '../../src/discover/others.ts';
import { createContext } from '../../src/scan/context.ts';
import { walk } from '../../src/scan/walk/walk.ts';
import { makeTree } from '../helpers/index.ts';

// JVM unit tests inside a JS package (src/discover/jvm-host.ts): tests of the project's command only where
// that command starts Gradle or Maven. Shaped after React Native libraries (`android/src/test/java/...`).

async function discover(root: string): Promise<{ files: string[]; notes: string[] }> {
  const ctx = createContext(root, await walk(root));
  const tests = await discoverOthers(ctx);
  return { files: tests.map((t) => t.file).sort(), notes: ctx.notes };
}
const json = (v: unknown): string => JSON.stringify(v);
const KOTLIN_TEST = 'class ParserTest {\n  @Test fun parses() {}\n}\n';

function library(test: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'package.json': json({ name: 'react-native-acme', scripts: { test, 'android:unit': 'cd android && ./gradlew testDebugUnitTest',
      'test:android': 'cd android && ./gradlew test' } }),
    'android/build.gradle': "apply plugin: 'com.android.library'\n",
    'android/src/main/java/com/acme/Parser.kt': 'class Parser\n',
    'android/src/test/java/com/acme/ParserTest.kt': KOTLIN_TEST,
    'example/package.json': json({ name: 'example', scripts: { test: 'jest' } }),
    'example/android/build.gradle': '', 'example/android/settings.gradle': '',
    'example/android/app/build.gradle': "apply plugin: 'com.android.application'\n",
    'example/android/app/src/test/java/com/example/AppTest.java': 'public class AppTest {\n  @Test public void a() {}\n}\n',
    'src/__tests__/index.test.tsx': '',
    ...extra,
  };
}

suite('JVM tests inside a JS package', () => {
  test('a React Native library whose test script is Jest lists none of its Gradle unit tests (a sibling test:android script is another command), and says so', async (t) => {
    const { files, notes } = await discover(makeTree(t, library('jest')));
    assert.deepEqual(files, []);
    assert.deepEqual(notes, [
      'android: 1 file under its Gradle test sources not listed: the module lies inside the JS package at the root, whose test script (`jest`) never starts Gradle',
      'example/android/app: 1 file under its Gradle test sources not listed: the module lies inside the JS package at example, whose test script (`jest`) never starts Gradle',
    ]);
  });

  test('kept where the test script starts Gradle (through a script it names), where there is no test script, and in a JVM project with a package.json', async (t) => {
    const runs = await discover(makeTree(t, library('jest && npm run android:unit')));
    assert.deepEqual(runs.files, ['android/src/test/java/com/acme/ParserTest.kt']);
    // A script file the test script runs, read without its comments.
    const file = await discover(makeTree(t, library('node scripts/test', {
      'scripts/test.js': "const { execSync } = require('child_process');\nexecSync('cd android && ./gradlew testDebugUnitTest');\n",
    })));
    assert.deepEqual(file.files, ['android/src/test/java/com/acme/ParserTest.kt']);
    const commented = await discover(makeTree(t, library('node scripts/test', {
      'scripts/test.js': "// execSync('cd android && ./gradlew testDebugUnitTest');\n",
    })));
    assert.deepEqual(commented.files, []);
    const none = await discover(makeTree(t, library('echo "Error: no test specified" && exit 1')));
    assert.deepEqual(none.files, ['android/src/test/java/com/acme/ParserTest.kt']);
    const jvm = await discover(makeTree(t, {
      'package.json': json({ scripts: { test: 'commitlint --edit' } }), 'settings.gradle': "include 'core'\n",
      'core/build.gradle': '', 'core/src/test/kotlin/CoreTest.kt': KOTLIN_TEST,
    }));
    assert.deepEqual(jvm.files, ['core/src/test/kotlin/CoreTest.kt']);
  });
});
