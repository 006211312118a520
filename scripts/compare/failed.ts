/**
 * A runner that ran but could not list its tests (an import error in a test module, a compile error, no
 * network for `go list`): its partial output is no ground truth, so the comparison says "failed" with the
 * runner's own first error line instead of reporting the files it did not reach as a difference.
 */
export class RunnerFailed extends Error {
  constructor(what: string, stderr = '') {
    // The most telling line: an exception's (`ModuleNotFoundError: ...`), else one that says error, else the first.
    const lines = stderr.split('\n').map((l) => l.replace(/^E\s+/, '').trim()).filter(Boolean);
    const line = lines.find((l) => /^\w*(Error|Exception): /.test(l)) ?? lines.find((l) => /error|cannot|not found|failed|no such/i.test(l)) ?? lines[0];
    super(line ? `${what}: ${line.slice(0, 200)}` : what);
    this.name = 'RunnerFailed';
  }
}
