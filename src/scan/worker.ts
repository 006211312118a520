// Worker-thread entry: runs `scan` for the main thread, one request at a time, and posts the result back.
import { parentPort } from 'node:worker_threads';
import { scan, type ScanOptions } from './index.ts';

export interface ScanRequest { readonly id: number; readonly root: string; readonly options: ScanOptions }
export type ScanReply =
  | { readonly id: number; readonly result: Awaited<ReturnType<typeof scan>> }
  | { readonly id: number; readonly error: { readonly message: string; readonly code?: string } };

parentPort?.on('message', ({ id, root, options }: ScanRequest) => {
  scan(root, options).then(
    (result) => parentPort!.postMessage({ id, result } satisfies ScanReply),
    (error: NodeJS.ErrnoException) => parentPort!.postMessage({ id, error: { message: String(error?.message ?? error), ...(error?.code ? { code: error.code } : {}) } } satisfies ScanReply),
  );
});
