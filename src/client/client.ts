/**
 * createClient: resolves the agent card, picks an interface (CARD-05), and runs the eleven
 * operations over its transport — with the interface's tenant in every request (TENANT-02),
 * A2A-Version on every request (VER-02), interceptors, credentials, per-call deadlines,
 * retries of idempotent calls, and resumable task streams.
 */
import { EXTENSIONS_HEADER, PROTOCOL_VERSION, VERSION_HEADER } from '../protocol/serviceParams.js';
import type {
  AgentCard,
  AgentInterface,
  OperationName,
  OperationRequests,
  OperationResponses,
  SendMessageResponse,
  StreamResponse,
  StreamingOperationName,
  Task,
  TaskPushNotificationConfig,
  UnaryOperationName,
} from '../protocol/types.js';
import { cardUrlOf, checkCard, rawCardOf, readAgentCard, resolveCard } from './cardResolver.js';
import { responseInfo } from './errors.js';
import type { V03AgentCard } from '../compat/v03Types.js';
import type { CallResult, ClientCall } from './interceptors.js';
import { jsonRpcTransport } from './jsonrpcTransport.js';
import { createMessage } from './messages.js';
import { checkResponse } from './responses.js';
import { restTransport } from './restTransport.js';
import { retryDelay } from './retry.js';
import { Deadline, sleep } from './signals.js';
import { oneTaskCheck } from './streamTask.js';
import { resumableStream, waitForTask, type WaitOptions } from './streams.js';
import { selectInterface, type FetchLike, type StreamItem, type Transport, type TransportFactory } from './transport.js';
import type { CallOptions, ClientOptions, SendOptions } from './clientOptions.js';

export type { CallOptions, ClientOptions, SendOptions } from './clientOptions.js';

type Request<K extends OperationName> = OperationRequests[K];

export const BUILTIN_TRANSPORTS: readonly TransportFactory[] = [jsonRpcTransport, restTransport];

const transportsOf = (options: ClientOptions) => [...BUILTIN_TRANSPORTS, ...(options.transports ?? [])];

/** The first translation of a card of another protocol version a plugged-in transport offers (A2A 0.3 cards are read by readAgentCard anyway). */
function cardReader(options: ClientOptions) {
  return async (value: unknown) => {
    for (const t of transportsOf(options)) {
      const card = await t.readCard?.(value);
      if (card) return card;
    }
    return undefined;
  };
}

/**
 * Connects to an agent given its URL (its card is fetched) or its AgentCard. An A2A 0.3 card is
 * read as a 1.0 card with 0.3 interfaces, and 0.3 is spoken to them (docs/client.md).
 */
export async function createClient(agent: string | URL | AgentCard | V03AgentCard, options: ClientOptions = {}): Promise<A2AClient> {
  const fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  let card: AgentCard;
  let cardSource: string | URL | undefined;
  if (typeof agent === 'string' || agent instanceof URL) {
    cardSource = agent;
    card = await fetchCard(agent, { ...options, fetch });
  } else {
    card = await readAgentCard(agent, cardReader(options));
  }
  const { bindings, versions, maxEventSize, maxResponseBytes, streamIdleMs } = options;
  const { agentInterface, factory } = selectInterface(card, transportsOf(options), { bindings, versions });
  // cardUrl: also for a card fetchCard / resolveCard read before (the CLI's).
  const context = { fetch, card, cardUrl: cardUrlOf(card), maxEventSize, maxResponseBytes, streamIdleMs };
  const transport = factory.create(agentInterface, { ...context, ...(versions ? { versions } : {}) });
  return new A2AClient({ card, agentInterface, transport, options, fetch, cardSource });
}

/** resolveCard under the client's options, with aborts and timeouts reported as such (also `a2a card`'s). */
export async function fetchCard(source: string | URL, options: ClientOptions & { fetch: FetchLike }): Promise<AgentCard> {
  const deadline = new Deadline(options.signal, options.timeoutMs);
  try {
    return await resolveCard(source, {
      fetch: options.fetch,
      signal: deadline.signal,
      cache: options.cardCache,
      headers: options.headers,
      verifyCardSignatures: options.verifyCardSignatures,
      cardVerification: options.cardVerification,
      readCard: cardReader(options),
      maxCardBytes: options.maxCardBytes,
    });
  } catch (error) {
    throw deadline.wrap(error);
  } finally {
    deadline.dispose();
  }
}

export class A2AClient {
  /** The agent card (replaced by the extended card once getExtendedAgentCard succeeded, CACHE-06). */
  card: AgentCard;
  /** The card as the agent served it: the A2A 0.3 JSON for a 0.3 agent, else `card` itself. */
  get rawCard(): unknown {
    return rawCardOf(this.card);
  }
  /** The interface in use: its URL, binding, protocol version and tenant. */
  readonly agentInterface: AgentInterface;
  private readonly transport: Transport;
  private readonly options: ClientOptions;
  private readonly fetch: FetchLike;
  private readonly cardSource: string | URL | undefined;

  constructor(init: {
    card: AgentCard;
    agentInterface: AgentInterface;
    transport: Transport;
    options: ClientOptions;
    fetch: FetchLike;
    cardSource?: string | URL | undefined;
  }) {
    this.card = init.card;
    this.agentInterface = init.agentInterface;
    this.transport = init.transport;
    this.options = init.options;
    this.fetch = init.fetch;
    this.cardSource = init.cardSource;
  }

  // ---- The eleven operations (camelCase proto rpc names) ----

  sendMessage(request: Request<'sendMessage'>, options?: CallOptions): Promise<SendMessageResponse> {
    return this.unary('sendMessage', request, options);
  }
  /** The events of the task (or the one message), resumed after a dropped connection. */
  sendStreamingMessage(request: Request<'sendStreamingMessage'>, options?: CallOptions): AsyncGenerator<StreamResponse> {
    return this.streamOf('sendStreamingMessage', request, options);
  }
  getTask(request: Request<'getTask'>, options?: CallOptions): Promise<Task> {
    return this.unary('getTask', request, options);
  }
  listTasks(request: Request<'listTasks'> = {}, options?: CallOptions): Promise<OperationResponses['listTasks']> {
    return this.unary('listTasks', request, options);
  }
  cancelTask(request: Request<'cancelTask'>, options?: CallOptions): Promise<Task> {
    return this.unary('cancelTask', request, options);
  }
  subscribeToTask(request: Request<'subscribeToTask'>, options?: CallOptions): AsyncGenerator<StreamResponse> {
    return this.streamOf('subscribeToTask', request, options);
  }
  createTaskPushNotificationConfig(request: Request<'createTaskPushNotificationConfig'>, options?: CallOptions): Promise<TaskPushNotificationConfig> {
    return this.unary('createTaskPushNotificationConfig', request, options);
  }
  getTaskPushNotificationConfig(request: Request<'getTaskPushNotificationConfig'>, options?: CallOptions): Promise<TaskPushNotificationConfig> {
    return this.unary('getTaskPushNotificationConfig', request, options);
  }
  listTaskPushNotificationConfigs(request: Request<'listTaskPushNotificationConfigs'>, options?: CallOptions): Promise<OperationResponses['listTaskPushNotificationConfigs']> {
    return this.unary('listTaskPushNotificationConfigs', request, options);
  }
  deleteTaskPushNotificationConfig(request: Request<'deleteTaskPushNotificationConfig'>, options?: CallOptions): Promise<OperationResponses['deleteTaskPushNotificationConfig']> {
    return this.unary('deleteTaskPushNotificationConfig', request, options);
  }
  async getExtendedAgentCard(request: Request<'getExtendedAgentCard'> = {}, options?: CallOptions): Promise<AgentCard> {
    const card = checkCard(await this.unary('getExtendedAgentCard', request, options), 'The extended agent card');
    this.card = card;
    return card;
  }

  // ---- Helpers ----

  /** Sends a message built from text (plus data, files…; see createMessage). */
  sendText(text: string, options: SendOptions = {}): Promise<SendMessageResponse> {
    const [request, call] = this.messageRequest(text, options);
    return this.sendMessage(request, call);
  }

  /** Streams a message built from text (plus data, files…; see createMessage). */
  streamText(text: string, options: SendOptions = {}): AsyncGenerator<StreamResponse> {
    const [request, call] = this.messageRequest(text, options);
    return this.sendStreamingMessage(request, call);
  }

  /** Waits until the task is terminal (or, with `until: 'finalForNow'`, interrupted too). */
  waitForTask(taskId: string, options: WaitOptions & CallOptions = {}): Promise<Task> {
    const deadline = new Deadline(options.signal, options.timeoutMs);
    const scoped: CallOptions = { signal: deadline.signal, headers: options.headers, onActivatedExtensions: options.onActivatedExtensions };
    return waitForTask(
      {
        streaming: this.card.capabilities.streaming === true,
        subscribe: (id) => this.subscribeToTask({ id }, scoped),
        getTask: (id) => this.getTask({ id }, scoped),
      },
      taskId,
      { ...options, signal: deadline.signal },
    ).then(
      (task) => (deadline.dispose(), task),
      (error: unknown) => {
        deadline.dispose();
        throw deadline.wrap(error);
      },
    );
  }

  /** The current agent card, revalidated through the card cache when the client was created from a URL. */
  async refreshCard(options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<AgentCard> {
    if (this.cardSource === undefined) return this.card;
    this.card = await fetchCard(this.cardSource, { ...this.options, ...options, fetch: this.fetch });
    return this.card;
  }

  private messageRequest(text: string, options: SendOptions): [Request<'sendMessage'>, CallOptions] {
    const { signal, timeoutMs, headers, onActivatedExtensions, configuration, requestMetadata, ...input } = options;
    const request: Request<'sendMessage'> = { message: createMessage({ ...input, text }) };
    if (configuration) request.configuration = configuration;
    if (requestMetadata) request.metadata = requestMetadata;
    return [request, { signal, timeoutMs, headers, onActivatedExtensions }];
  }

  // ---- Calls ----

  private async unary<K extends UnaryOperationName>(op: K, request: Request<K>, options: CallOptions = {}): Promise<OperationResponses[K]> {
    const deadline = new Deadline(options.signal, options.timeoutMs ?? this.options.timeoutMs);
    try {
      const { call, value } = await this.run(op, request, {
        options,
        deadline,
        send: async (c) => checkResponse(op, await this.transport.unary(c as ClientCall<K>)),
      });
      // Raced like `before`: an `after` interceptor that hangs cannot outlast the call's deadline.
      await deadline.race(this.after(call, { ok: true, value }));
      return value;
    } finally {
      deadline.dispose();
    }
  }

  private streamOf(op: StreamingOperationName, request: Request<StreamingOperationName>, options: CallOptions = {}): AsyncGenerator<StreamResponse> {
    const open = async (opName: StreamingOperationName, req: Request<StreamingOperationName>, extra?: Record<string, string>) => {
      const callOptions = extra ? { ...options, headers: { ...options.headers, ...extra } } : options;
      const deadline = new Deadline(options.signal, callOptions.timeoutMs ?? this.options.timeoutMs);
      try {
        const { call, value } = await this.run(opName, req, {
          options: callOptions,
          deadline,
          send: (c) => this.transport.stream(c as ClientCall<StreamingOperationName>),
        });
        deadline.stopTimer();
        return this.observe(call, value, deadline);
      } catch (error) {
        deadline.dispose();
        throw error;
      }
    };
    return resumableStream({
      open: () => open(op, request),
      resubscribe: (id, lastEventId) => open('subscribeToTask', { id }, lastEventId ? { 'last-event-id': lastEventId } : undefined),
      getTask: (id) => this.getTask({ id }, options),
      options: this.options.resume ?? {},
      signal: options.signal,
    });
  }

  /** Passes the events through (each about the stream's task, STREAM-09), then tells the interceptors how the stream ended (also when the reader stopped early). */
  private async *observe(call: ClientCall, items: AsyncIterable<StreamItem>, deadline: Deadline): AsyncGenerator<StreamItem> {
    let result: CallResult | undefined;
    let last: StreamResponse | undefined;
    const sameTask = oneTaskCheck(call);
    try {
      for await (const item of items) {
        // Aborted: the events already read and buffered are not handed out any more.
        deadline.check();
        sameTask(item.event);
        last = item.event;
        yield item;
      }
    } catch (error) {
      result = { ok: false, error: deadline.wrap(error) };
      throw result.error;
    } finally {
      deadline.dispose();
      await this.after(call, result ?? { ok: true, value: last });
    }
  }

  private async after(call: ClientCall, result: CallResult): Promise<void> {
    for (const interceptor of this.options.interceptors ?? []) await interceptor.after?.(call, result);
  }

  /**
   * One call: the request with the tenant, service parameters and caller headers; `before`
   * interceptors; then attempts, each with fresh credentials, repeated once after a 401 when
   * the auth provider renewed its credential, and with backoff while retryDelay allows.
   * Failures reach the `after` interceptors here; successes are reported by the caller.
   */
  private async run<T>(
    op: OperationName,
    request: Request<OperationName>,
    context: { options: CallOptions; deadline: Deadline; send: (call: ClientCall) => Promise<T> },
  ): Promise<{ call: ClientCall; value: T }> {
    const { options, deadline, send } = context;
    const tenant = this.agentInterface.tenant;
    const headers = new Headers({ [VERSION_HEADER]: PROTOCOL_VERSION });
    if (this.options.extensions?.length) headers.set(EXTENSIONS_HEADER, this.options.extensions.join(', '));
    for (const extra of [this.options.headers, options.headers]) for (const [k, v] of Object.entries(extra ?? {})) headers.set(k, v);
    const call: ClientCall = {
      op,
      request: tenant ? { ...request, tenant } : request,
      headers,
      query: new URLSearchParams(),
      signal: deadline.signal,
      deadline: deadline.at,
      card: this.card,
      agentInterface: this.agentInterface,
    };
    const auth = this.options.auth;
    const retry = this.options.retry;
    let refreshed = false;
    try {
      for (const interceptor of this.options.interceptors ?? []) await deadline.race(interceptor.before?.(call));
      for (let n = 0; ; ) {
        deadline.check();
        const current: ClientCall = { ...call, headers: new Headers(call.headers), query: new URLSearchParams(call.query) };
        let value: T;
        try {
          // Raced: a provider that hangs (a token endpoint that never answers) cannot outlast the deadline.
          await deadline.race(auth?.apply(current));
          value = await send(current);
        } catch (error) {
          const e = deadline.wrap(error);
          if (auth?.refresh && !refreshed && responseInfo(e)?.status === 401) {
            refreshed = true;
            if (await deadline.race(auth.refresh(current))) continue;
          }
          const delay = retry === false ? undefined : retryDelay({ op, request: call.request, error: e, attempt: n++ }, retry ?? {});
          if (delay === undefined) throw e;
          await sleep(delay, deadline.signal);
          continue;
        }
        // Outside the attempt: the caller's callback failing is no reason to retry.
        (options.onActivatedExtensions ?? this.options.onActivatedExtensions)?.(current.activatedExtensions ?? []);
        return { call: current, value };
      }
    } catch (error) {
      const e = deadline.wrap(error);
      await this.after(call, { ok: false, error: e });
      throw e;
    }
  }
}
