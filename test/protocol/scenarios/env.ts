/**
 * What every scenario group gets: the binding under test bound to a shared server (one per
 * binding, so ListTasks results of one binding never see the other's tasks), and a way to
 * start extra servers with other cards for the same binding. All servers close in after().
 */
import { after, before } from 'node:test';
import type { BindingFactory, BindingName, TestBinding } from '../../support/bindings.js';
import { startServer, type TestServer, type TestServerOptions } from '../../support/server.js';

export interface ScenarioEnv {
  readonly name: BindingName;
  /** The binding on the shared server. */
  readonly b: TestBinding;
  readonly server: TestServer;
  /** Starts another server (closed with the suite) and returns the same binding for it. */
  extra(options?: TestServerOptions): Promise<{ b: TestBinding; server: TestServer }>;
}

export function scenarioEnv(factory: BindingFactory, options: TestServerOptions = {}): ScenarioEnv {
  const servers: TestServer[] = [];
  let main: { b: TestBinding; server: TestServer } | undefined;
  const env: ScenarioEnv = {
    name: factory.name,
    get b() {
      if (!main) throw new Error('server not started');
      return main.b;
    },
    get server() {
      if (!main) throw new Error('server not started');
      return main.server;
    },
    async extra(opts = {}) {
      const server = await startServer(opts);
      servers.push(server);
      return { b: factory.create(server), server };
    },
  };
  before(async () => {
    main = await env.extra(options);
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });
  return env;
}
