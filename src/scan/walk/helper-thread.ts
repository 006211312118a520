// The helper thread's entry (started by helper.ts): answers the scanning thread's requests in turn,
// stamps (stamper.ts), reads ahead (read-ahead.ts) and walk sessions, which run over their own message
// port (walk-split.ts).
import { parentPort } from 'node:worker_threads';
import { answerStamp, type StampRequest } from '../incremental/stamper.ts';
import { answerWalk, type WalkRequest } from './walk-split.ts';
import { answerRead, type ReadRequest } from '../read-ahead.ts';

let turn: Promise<unknown> = Promise.resolve();
type Request = StampRequest | WalkRequest | ReadRequest;
parentPort!.on('message', ({ id, request }: { id: number; request: Request }) => {
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
