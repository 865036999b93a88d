/**
 * `npm run bench:grpc-layers`: where a gRPC unary SendMessage's server CPU goes, layer by layer
 * on grpc-js (bench/servers/grpcLayers.ts: bare → decode → binding → full), each server in its
 * own process under the same lean HTTP/2 load as row 6 (64 calls in flight on one connection).
 * Servers are measured in turn, `--rounds` times over (default 3), and each layer keeps its
 * median CPU per call. The last column is what share of the bare server's throughput a server
 * doing that much per call could reach when CPU-bound: the ceiling of the issue's "70 % of a
 * bare grpc-js server" goal for whatever sits on top of that layer (docs/grpc.md).
 *
 *   npx tsx bench/grpcLayers.ts [--duration 5] [--rounds 3]
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { H2GrpcClient, RequestTemplate } from './h2Load.js';
import { sendRequest } from './grpcLoad.js';
import { closedLoop } from './load.js';
import { GRPC_LAYERS as LAYERS, type GrpcLayer as Layer } from './servers/ipc.js';

const { values: args } = parseArgs({ options: { duration: { type: 'string', default: '5' }, rounds: { type: 'string', default: '3' } } });
const DURATION = Number(args.duration);
const ROUNDS = Number(args.rounds);
const CONCURRENCY = 64;

async function measure(layer: Layer): Promise<{ cpuUsPerCall: number; rate: number }> {
  const child: ChildProcess = fork(new URL('./servers/grpcLayers.ts', import.meta.url).pathname, [layer], { execArgv: ['--import', 'tsx'] });
  try {
    const [{ port }] = (await once(child, 'message')) as [{ port: number }];
    const client = new H2GrpcClient(`127.0.0.1:${port}`);
    const id = crypto.randomUUID();
    const template = new RequestTemplate('/lf.a2a.v1.A2AService/SendMessage', sendRequest('hi', id), id);
    const call = () => client.call(template, 1);
    await closedLoop({ concurrency: CONCURRENCY, duration: 1, call });
    child.send('start');
    const m = await closedLoop({ concurrency: CONCURRENCY, duration: DURATION, call });
    child.send('stop');
    const [{ cpuUs }] = (await once(child, 'message')) as [{ cpuUs: number }];
    client.close();
    if (m.errors + m.non2xx > 0) throw new Error(`${layer}: ${m.errors} errors, ${m.non2xx} non-2xx`);
    return { cpuUsPerCall: cpuUs / m.count, rate: m.count / m.seconds };
  } finally {
    child.kill();
  }
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[(values.length - 1) >> 1]!;
const samples = new Map<Layer, number[]>(LAYERS.map((l) => [l, []]));
for (let round = 1; round <= ROUNDS; round++) {
  for (const layer of round % 2 === 1 ? LAYERS : [...LAYERS].reverse()) {
    const { cpuUsPerCall, rate } = await measure(layer);
    samples.get(layer)!.push(cpuUsPerCall);
    console.error(`  round ${round}  ${layer.padEnd(8)} ${rate.toFixed(0).padStart(6)} calls/s  ${cpuUsPerCall.toFixed(1)} µs CPU/call`);
  }
}
const bare = median(samples.get('bare')!);
console.log(`\ngRPC unary SendMessage, server CPU per call (all threads), median of ${ROUNDS} rounds, ${CONCURRENCY} calls in flight`);
console.log('layer     µs/call  over bare  share of bare throughput at most');
for (const layer of LAYERS) {
  const us = median(samples.get(layer)!);
  console.log(`${layer.padEnd(8)} ${us.toFixed(1).padStart(8)}  ${`+${(us - bare).toFixed(1)}`.padStart(9)}  ${(bare / us).toFixed(2).padStart(5)}`);
}
process.exit(0);
