/**
 * Official @a2a-js/sdk 1.x server with its InMemoryTaskStore (express handlers and echo agent:
 * servers/sdkApp.ts).
 */
import { InMemoryTaskStore } from '@a2a-js/sdk/server';
import { exitWithParent, reportReady } from './ipc.js';
import { listenSdk } from './sdkApp.js';

const server = await listenSdk(new InMemoryTaskStore());
reportReady({ name: 'sdk', ...server.urls });
exitWithParent(server.close);
