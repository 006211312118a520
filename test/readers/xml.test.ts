import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { parseXml, xmlChildren, xmlFind } from '../../src/readers/xml.ts';

suite('parseXml()', () => {
  test('reads phpunit testsuites with attributes, comments and entities', () => {
    const doc = parseXml(`<?xml version="1.0"?>
<!-- config -->
<phpunit xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" bootstrap="vendor/autoload.php">
  <testsuites>
    <testsuite name="Unit &amp; more">
      <directory suffix='Test.php'>tests/Unit</directory>
      <file>tests/Extra.php</file>
      <exclude>tests/Unit/Legacy</exclude>
    </testsuite>
  </testsuites>
</phpunit>`);
    const suite = xmlFind(doc, 'testsuite')[0]!;
    assert.equal(suite.attrs.name, 'Unit & more');
    assert.equal(xmlChildren(suite, 'directory')[0]?.attrs.suffix, 'Test.php');
    assert.equal(xmlChildren(suite, 'directory')[0]?.text, 'tests/Unit');
    assert.equal(xmlChildren(suite, 'exclude')[0]?.text, 'tests/Unit/Legacy');
  });

  test('namespaced tags, CDATA, self-closing and unbalanced input', () => {
    const doc = parseXml('<p:project><build><testSourceDirectory><![CDATA[src/it]]></testSourceDirectory><x/></build><open>');
    assert.equal(xmlFind(doc, 'testSourceDirectory')[0]?.text, 'src/it');
    assert.equal(xmlFind(doc, 'project').length, 1);
    assert.doesNotThrow(() => parseXml('<<a </b> <c d="1 >'));
  });
});
