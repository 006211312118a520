/**
 * Static estimate of the test cases in a Python module, line by line (no parser): module-level
 * `def test*` functions (pytest only) and `def test*` methods of test classes. A test class is one
 * named `Test*` (pytest) or one with base classes other than `object`, which covers `unittest.TestCase`
 * and its project-specific subclasses. Parametrization and generated tests are not expanded.
 *
 * @example
 * countPyTests('def test_a(): pass\nclass TestB:\n    def test_c(self): pass\n', 'pytest'); // 2
 */
export function countPyTests(text: string, mode: 'pytest' | 'unittest'): number {
  let count = 0;
  let inTestClass = false;
  let classIndent = -1;
  for (const line of text.split('\n')) {
    const trimmed = line.trimStart();
    if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith('@')) continue;
    const indent = line.length - trimmed.length;
    if (classIndent !== -1 && indent <= classIndent) { classIndent = -1; inTestClass = false; }
    const cls = /^class\s+(\w+)\s*(?:\(([^)]*)\))?\s*:/.exec(trimmed);
    if (cls) {
      if (classIndent !== -1) continue; // Nested classes are not collected in either mode.
      const bases = (cls[2] ?? '').split(',').map((b) => b.trim()).filter((b) => b !== '' && b !== 'object');
      classIndent = indent;
      inTestClass = bases.length > 0 || (mode === 'pytest' && cls[1]!.startsWith('Test'));
      continue;
    }
    if (!/^(?:async\s+)?def\s+test\w*\s*\(/.test(trimmed)) continue;
    if (classIndent === -1) { if (mode === 'pytest' && indent === 0) count++; }
    else if (inTestClass) count++;
  }
  return count;
}
