// The helper thread's entry (started by helper.ts): answers the scanning thread's requests in turn,
// stamps (stamper.ts) and walk sessions, which run over their own message port (walk-split.ts).
import { parentPort } from 'node:worker_threads';
import { answerStamp, type StampRequest } from '../incremental/stamper.ts';
import { answerWalk, type WalkRequest } from './walk-split.ts';

let turn: Promise<unknown> = Promise.resolve();
parentPort!.on('message', ({ id, request }: { id: number; request: StampRequest | WalkRequest }) => {
  turn = turn.then(async () => {
    if (request.kind === 'stamp') {
      const stamps = answerStamp(request);
      parentPort!.postMessage({ id, reply: stamps }, [stamps.buffer as ArrayBuffer]);
    } else {
      parentPort!.postMessage({ id, reply: await answerWalk(request) });
    }
  });
});
parentPort!.postMessage({ ready: true });
