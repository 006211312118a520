// The helper thread's entry (started by helper.ts): answers the scanning thread's requests in turn,
// stamps (stamper.ts), reads ahead (read-ahead.ts) and walk sessions, which run over their own message
// port (walk-split.ts); and, in a scan process, its watchdog (probe.ts).
import { writeSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { answerStamp, type StampRequest } from '../incremental/stamper.ts';
import { answerWalk, type WalkRequest } from './walk-split.ts';
import { answerRead, type ReadRequest } from '../read-ahead.ts';
import { watchStatus } from '../process/probe.ts';

/** The scan process's progress lines go to its fd 3 (scan-process.ts). */
const watch = (status: SharedArrayBuffer): void => { watchStatus(status, (line) => writeSync(3, line)); };
const given = (workerData as { watch?: SharedArrayBuffer } | null)?.watch;
if (given) watch(given);

let turn: Promise<unknown> = Promise.resolve();
type Request = StampRequest | WalkRequest | ReadRequest;
type Message = { id: number; request: Request; watch?: SharedArrayBuffer };
parentPort!.on('message', ({ id, request, watch: status }: Message) => {
  if (status) { watch(status); return; }
  turn = turn.then(async () => {
    if (request.kind === 'read') {
      const reply = answerRead(request);
      const moved = [reply.codes.buffer as ArrayBuffer, reply.stamps.buffer as ArrayBuffer];
      parentPort!.postMessage({ id, reply }, moved);
    } else if (request.kind === 'stamp') {
      answerStamp(request);
      parentPort!.postMessage({ id, reply: true });
    } else {
      parentPort!.postMessage({ id, reply: await answerWalk(request) });
    }
  });
});
parentPort!.postMessage({ ready: true });
