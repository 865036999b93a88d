/**
 * The binding-equivalence suite (R21, OPS-01): the same scenarios, unchanged, over every
 * binding in BINDINGS (JSON-RPC, HTTP+JSON and gRPC).
 * Each binding gets its own servers; the bindings run concurrently, scenarios sequentially.
 */
import { describe } from 'node:test';
import { BINDINGS } from '../support/bindings.js';
import { cancelScenarios } from './scenarios/cancel.js';
import { capabilityScenarios } from './scenarios/capabilities.js';
import { scenarioEnv } from './scenarios/env.js';
import { historyScenarios } from './scenarios/history.js';
import { listScenarios } from './scenarios/list.js';
import { messageScenarios } from './scenarios/messages.js';
import { pushScenarios } from './scenarios/push.js';
import { streamScenarios } from './scenarios/streams.js';

describe('A2A scenarios over every binding', { concurrency: true }, () => {
  for (const factory of BINDINGS) {
    describe(factory.name, { concurrency: 1 }, () => {
      const env = scenarioEnv(factory);
      messageScenarios(env);
      listScenarios(env);
      cancelScenarios(env);
      streamScenarios(env);
      capabilityScenarios(env);
      pushScenarios(env);
      historyScenarios(env);
    });
  }
});
