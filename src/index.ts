export { startServer } from './server/server.ts';
export type { ServerOptions, RunningServer } from './server/server.ts';
export { createHandler } from './server/app.ts';
export type { HandlerOptions, Logger } from './server/app.ts';
export { openStore } from './core/store/store.ts';
export type { Store, StoreOptions, ScanRecord } from './core/store/store.ts';
export { createScanner } from './core/scanner.ts';
export type { Scanner, ScanOutcome, ScanProjectOptions } from './core/scanner.ts';
// The library's scan() answers with the API's field names (`file_path`); see scanReport.
export { scanReport as scan } from './scan/index.ts';
export type { ScanReport, ReportedTest, ScanResult, ScanOptions } from './scan/index.ts';
export { createScanCache } from './scan/incremental/cache.ts';
export type { ScanCache, ScanCacheOptions } from './scan/incremental/cache.ts';
export { createScanPool } from './scan/process/pool.ts';
export type {
  ScanPool, ScanProgress, ScanWorkerOptions, WorkerScanOptions, PoolScanCall,
} from './scan/process/pool.ts';
export { walk } from './scan/walk/walk.ts';
export type { WalkOptions } from './scan/walk/walk.ts';
export type { FoundTest, FoundPort, RunInfo, TestFramework } from './rules/types.ts';
export { listen, DEFAULT_PORTS, PortsInUseError } from './server/listen.ts';
export { HttpError, httpError } from './server/http.ts';
export type { Project, Test, ProjectPort, ProjectUpdate } from './core/types.ts';
export { startWatching } from './core/watch.ts';
export type { WatchOptions, Watching } from './core/watch.ts';
export { createEvents } from './core/events.ts';
export type { Events, EventType, ProjdexEvent } from './core/events.ts';
