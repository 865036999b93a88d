/**
 * `--verbose`: the wire exchange on stderr. An interceptor names each A2A call (operation,
 * binding, URL) and its outcome; a fetch wrapper shows the HTTP requests under it (method, URL,
 * headers with credentials masked, status, timing, bodies and SSE lines cut to a readable length).
 *
 * Credentials are masked by name and by value (R23): headers and query parameters named like a
 * credential, every name the card's API key schemes declare (learned from each call's card, so
 * `{location: 'header', name: 'X-Access'}` is masked too), the names the CLI itself used, and
 * anywhere in the log the credential values the CLI was given (`--api-key`, `A2A_TOKEN`).
 */
import type { FetchLike } from '../client/transport.js';
import type { Interceptor } from '../client/interceptors.js';
import { responseInfo } from '../client/errors.js';
import { grpcCodeName, grpcCodeOf } from './grpcStatus.js';
import type { AgentCard } from '../protocol/types.js';
import { isSecretName } from '../net/secretParams.js';
import { redactSecrets } from './redact.js';
import type { Style } from './render/style.js';

export interface WireLogOptions {
  write: (line: string) => void;
  style: Style;
  /** Longest body shown (default 1000 characters). */
  limit?: number;
  /** Header / query parameter names that carry credentials, besides those named like one. */
  secretNames?: readonly string[];
  /** Credential values: shown as *** wherever they would appear (shorter than 4 characters: by name only). */
  secrets?: readonly (string | undefined)[];
  /** The fetch under the log (default: the global fetch). */
  fetch?: FetchLike;
}

/** Which names and values the log masks; learns the names the agent's card declares. */
class Masker {
  private readonly names = new Set<string>();
  private readonly values: readonly (string | undefined)[];

  constructor(options: WireLogOptions) {
    for (const name of options.secretNames ?? []) this.names.add(name.toLowerCase());
    this.values = options.secrets ?? [];
  }

  /** The header, query and cookie names of the card's API key schemes. */
  learn(card: AgentCard): void {
    for (const scheme of Object.values(card.securitySchemes ?? {})) {
      const name = 'apiKeySecurityScheme' in scheme ? scheme.apiKeySecurityScheme.name : undefined;
      if (name) this.names.add(name.toLowerCase());
    }
  }

  isSecret(name: string): boolean {
    return isSecretName(name) || this.names.has(name.toLowerCase());
  }

  header(name: string, value: string): string {
    if (!this.isSecret(name)) return value;
    const scheme = /^(\w+)\s+\S/.exec(value)?.[1];
    return scheme && /^(bearer|basic)$/i.test(scheme) ? `${scheme} ***` : '***';
  }

  /**
   * Any text about to be logged, without the known credential values, the user names and
   * passwords of URLs, nor the values of their query parameters named like a credential (a
   * webhook's `?access_token=` in a push config body, an API key sent in the query).
   */
  text(line: string): string {
    return redactSecrets(line, this.values, (name) => this.isSecret(name));
  }
}

/** Headers every request carries that say nothing interesting. */
const BORING = new Set(['accept', 'content-length']);
const HTTP_BINDINGS = new Set(['JSONRPC', 'HTTP+JSON']);

export function truncate(text: string, limit: number): string {
  const flat = text.replace(/\s*\n\s*/g, ' ');
  return flat.length <= limit ? flat : `${flat.slice(0, limit)}… (+${flat.length - limit} chars)`;
}

/** Push config secrets inside JSON bodies (R23): `token` and `credentials` values become ***. */
export function maskBody(text: string): string {
  return text.replace(/"(token|credentials)"(\s*:\s*)"(?:[^"\\]|\\.)*"/g, '"$1"$2"***"');
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = 'reason' in error ? String(error.reason) : 'code' in error ? String(error.code) : error.name;
  // A gRPC call's status code, not the HTTP status responseInfo gives as its equivalent.
  const grpcCode = grpcCodeOf(error);
  const status = responseInfo(error)?.status;
  const tag = grpcCode !== undefined ? ` [gRPC ${grpcCodeName(grpcCode)}]` : status !== undefined ? ` [HTTP ${status}]` : '';
  return `${code}: ${error.message}${tag}`;
}

function causeOf(error: unknown): string {
  let e: unknown = error;
  let message = error instanceof Error ? error.message : String(error);
  for (let i = 0; i < 5 && e instanceof Error && e.cause instanceof Error; i++) {
    e = e.cause;
    message = (e as Error).message || message;
  }
  return message;
}

export function wireLog(options: WireLogOptions): { interceptor: Interceptor; fetch: FetchLike } {
  const { write, style } = options;
  const limit = options.limit ?? 1000;
  const masker = new Masker(options);
  const line = (prefix: string, text: string) => write(masker.text(`${style.dim(prefix)} ${text}\n`));
  // Masked before it is cut short, so that no secret shows half of itself at the cut.
  const body = (text: string): string => truncate(masker.text(maskBody(text)), limit);

  const interceptor: Interceptor = {
    before(call) {
      masker.learn(call.card);
      const { protocolBinding, url, tenant } = call.agentInterface;
      line('*', `${style.bold(call.op)} via ${protocolBinding} ${url}${tenant ? ` (tenant ${tenant})` : ''}`);
      if (!HTTP_BINDINGS.has(protocolBinding)) line('>', body(JSON.stringify(call.request)));
    },
    after(call, result) {
      if (result.ok && !HTTP_BINDINGS.has(call.agentInterface.protocolBinding)) {
        line('<', body(JSON.stringify(result.value) ?? ''));
      }
      line('*', `${call.op} ${result.ok ? style.green('ok') : style.red(`failed: ${describe(result.error)}`)}`);
    },
  };

  const fetch: FetchLike = async (input, init) => {
    const method = init.method ?? 'GET';
    line('>', `${style.bold(method)} ${input}`);
    new Headers(init.headers).forEach((value, name) => {
      if (!BORING.has(name)) line('>', style.dim(`${name}: ${masker.header(name, value)}`));
    });
    if (typeof init.body === 'string') line('>', body(init.body));
    const started = performance.now();
    let res: Response;
    try {
      res = await (options.fetch ?? globalThis.fetch)(input, init);
    } catch (error) {
      line('<', style.red(`${method} ${input} failed: ${causeOf(error)}`));
      throw error;
    }
    const type = res.headers.get('content-type') ?? '';
    const ms = Math.round(performance.now() - started);
    const status = `${res.status}${res.statusText ? ` ${res.statusText}` : ''}`;
    line('<', `${res.ok ? style.green(status) : style.red(status)} ${type} ${style.dim(`(${ms} ms)`)}`);
    if (type.toLowerCase().startsWith('text/event-stream') && res.body) {
      const logged = res.body.pipeThrough(sseLogger((text) => line('<', body(text))));
      return new Response(logged, { status: res.status, statusText: res.statusText, headers: res.headers });
    }
    try {
      const text = await res.clone().text();
      if (text) line('<', body(text));
    } catch {
      // The body could not be read twice; the transport will report its own failure.
    }
    return res;
  };

  return { interceptor, fetch };
}

/** Passes the bytes through, logging each non-empty line of the event stream. */
function sseLogger(log: (line: string) => void): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  let pending = '';
  const flush = (text: string) => {
    pending += text;
    const lines = pending.split(/\r?\n/);
    pending = lines.pop() ?? '';
    for (const l of lines) if (l.trim()) log(l);
  };
  return new TransformStream({
    transform(chunk, controller) {
      flush(decoder.decode(chunk, { stream: true }));
      controller.enqueue(chunk);
    },
    flush() {
      flush(`${decoder.decode()}\n`);
    },
  });
}
