/**
 * The Python module projdex puts first on PYTHONPATH as `sitecustomize` for a unittest step: Python
 * imports it at startup, and it makes `unittest.TestResult` also write one JSON line per result (the test's
 * source file, id, status, time, message) to the file `PJX_UNITTEST_REPORT` names. Every runner built on
 * unittest's results (`python -m unittest`, Django's `manage.py test`, `coverage run`, workers of a
 * parallel run) goes through it; a `sitecustomize` the environment had is still imported after it.
 */
export const UNITTEST_HOOK = String.raw`# Written by projdex for one test run; records unittest results as JSON lines.
import os as _os

def _pjx_install():
    out = _os.environ.get('PJX_UNITTEST_REPORT')
    if not out:
        return
    import inspect, json, time, traceback, unittest.result
    base = unittest.result.TestResult
    started = {}

    def where(test):
        case = getattr(test, 'test_case', test)
        module = None
        if type(case).__name__ == '_FailedTest':
            module = getattr(case, '_testMethodName', None)
        try:
            return inspect.getsourcefile(type(case)), module
        except Exception:
            return None, module

    def write(test, status, detail=None):
        try:
            case = getattr(test, 'test_case', test)
            name = case.id() if hasattr(case, 'id') else str(case)
            if case is not test:
                name = test.id() if hasattr(test, 'id') else name
            message = None
            if isinstance(detail, tuple) and len(detail) == 3:
                message = ''.join(traceback.format_exception_only(detail[0], detail[1])).strip()
            elif detail is not None:
                message = str(detail)
            begun = started.pop(id(test), None)
            file, module = where(test)
            line = json.dumps({'file': file, 'module': module, 'name': name, 'status': status, 'message': message,
                               'ms': None if begun is None else (time.perf_counter() - begun) * 1000})
            with open(out, 'a', encoding='utf-8') as f:
                f.write(line + '\n')
        except Exception:
            pass

    def wrap(method, status, keeps_detail=True):
        original = getattr(base, method)
        def recorded(self, test, *args):
            write(test, status, args[-1] if args and keeps_detail else None)
            return original(self, test, *args)
        setattr(base, method, recorded)

    original_start = base.startTest
    def start(self, test):
        started[id(test)] = time.perf_counter()
        return original_start(self, test)
    base.startTest = start
    wrap('addSuccess', 'passed')
    wrap('addFailure', 'failed')
    wrap('addError', 'failed')
    wrap('addSkip', 'skipped')
    wrap('addExpectedFailure', 'passed', False)
    wrap('addUnexpectedSuccess', 'failed')
    original_sub = base.addSubTest
    def sub(self, test, subtest, err):
        if err is not None:
            write(subtest, 'failed', err)
        return original_sub(self, test, subtest, err)
    base.addSubTest = sub

def _pjx_chain():
    # The sitecustomize this one shadows (a distribution's, a virtualenv's) still runs.
    import importlib.machinery, importlib.util, sys
    here = _os.path.dirname(_os.path.abspath(__file__))
    rest = [p for p in sys.path if _os.path.abspath(p or '.') != here]
    spec = importlib.machinery.PathFinder.find_spec('sitecustomize', rest)
    if spec and spec.loader:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)

try:
    _pjx_install()
finally:
    _pjx_chain()
`;
