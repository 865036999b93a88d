/**
 * The pieces behind the client commands, in process: the stream renderer (chunks continue the
 * artifact on screen, snapshots after a resumption repeat nothing), the spinner on a terminal,
 * tables, colours, state names, header parsing and the exit-code mapping.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { A2AClientError } from '../../src/client/errors.js';
import { TaskNotFoundError } from '../../src/protocol/errors.js';
import type { StreamResponse, Task } from '../../src/protocol/types.js';
import { bindingOf, headersOf, intOption } from '../../src/cli/args.js';
import { CliError, EXIT, exitCodeOf, reportOf, taskExitCode } from '../../src/cli/errors.js';
import { parseState } from '../../src/cli/commands/list.js';
import { base64Size, renderParts, stateName } from '../../src/cli/render/parts.js';
import { Spinner } from '../../src/cli/render/spinner.js';
import { StreamRenderer } from '../../src/cli/render/stream.js';
import { colorsWanted, createStyle, stripAnsi } from '../../src/cli/render/style.js';
import { renderTable } from '../../src/cli/render/table.js';
import { UsageError } from '../../src/cli/usage.js';

const plain = createStyle(false);
const task = (state: Task['status']['state'] = 'TASK_STATE_WORKING', extra: Partial<Task> = {}): Task => ({ id: 't1', contextId: 'c1', status: { state }, ...extra });
const chunk = (text: string, append = true, artifactId = 'a1'): StreamResponse => ({
  artifactUpdate: { taskId: 't1', contextId: 'c1', artifact: { artifactId, name: artifactId === 'a1' ? 'story' : 'other', parts: [{ text }] }, append },
});
const status = (state: Task['status']['state'], text?: string): StreamResponse => ({
  statusUpdate: { taskId: 't1', contextId: 'c1', status: text ? { state, message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text }] } } : { state } },
});

function render(events: StreamResponse[], options: { spinner?: boolean; mode?: 'stream' | 'chat' } = {}): string {
  let out = '';
  const r = new StreamRenderer({ style: plain, write: (t) => (out += t), spinner: options.spinner ?? false, mode: options.mode ?? 'stream' });
  for (const e of events) r.event(e);
  r.finish();
  return out;
}

describe('StreamRenderer', () => {
  test('appended chunks continue the artifact on screen; a new artifact gets its own header; summary at the end', () => {
    const out = render([
      { task: task('TASK_STATE_SUBMITTED') },
      status('TASK_STATE_WORKING', 'busy'),
      chunk('Once ', false),
      chunk('upon '),
      chunk('a time.\n'),
      chunk('{other}', false, 'a2'),
      chunk(' the end', true),
      status('TASK_STATE_COMPLETED', 'done'),
    ]);
    assert.equal(
      out,
      [
        'task t1  context c1',
        '· working  busy',
        '▸ story',
        'Once upon a time.',
        '▸ other',
        '{other}',
        '▸ story (continued)',
        ' the end',
        'completed  task t1',
        'done',
        '2 artifacts: story (4 parts), other (1 part)',
        '',
      ].join('\n'),
    );
  });

  test('a snapshot after a resumption repeats nothing already shown; a replaced artifact is shown again', () => {
    const a1 = (parts: string[]) => ({ artifactId: 'a1', name: 'story', parts: parts.map((text) => ({ text })) });
    const out = render([
      { task: task() },
      chunk('one\n', false),
      { task: task('TASK_STATE_WORKING', { artifacts: [a1(['one\n', 'two\n'])] }) },
      chunk('three\n'),
      { artifactUpdate: { taskId: 't1', contextId: 'c1', artifact: a1(['new\n']) } },
    ]);
    assert.equal(out.split('▸ story\n').length - 1, 2, out);
    assert.match(out, /^▸ story\none\ntwo\nthree\n▸ story\nnew\n/m);
  });

  test('chat mode: artifacts only (no header, states or summary); direct replies left to the caller', () => {
    assert.equal(render([{ task: task() }, status('TASK_STATE_WORKING', 'x'), chunk('hi\n', false), status('TASK_STATE_COMPLETED')], { mode: 'chat' }), '▸ story\nhi\n');
    assert.equal(render([{ message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'yo' }] } }], { mode: 'chat' }), '');
    assert.equal(render([{ message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'yo' }] } }]), 'yo\n');
  });

  test('on a terminal a spinner shows the state and the number of chunks, and is erased before output', () => {
    const out = render([{ task: task() }, status('TASK_STATE_WORKING', 'busy'), chunk('a\n', false)], { spinner: true });
    // eslint-disable-next-line no-control-regex
    assert.match(out, /\r\x1b\[2K[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] working · busy/);
    assert.match(out, /working · busy · 1 chunk/);
    // What stays on the terminal: every frame was cleared again.
    const lines = [''];
    // eslint-disable-next-line no-control-regex
    for (const token of out.split(/(\r\x1b\[2K|\n)/)) {
      if (token === '\r\x1b[2K') lines[lines.length - 1] = '';
      else if (token === '\n') lines.push('');
      else lines[lines.length - 1] += token;
    }
    assert.equal(lines.join('\n'), 'task t1  context c1\n· working\n▸ story\na\nworking  task t1\nbusy\n1 artifact: story (1 part)\n');
  });
});

describe('Spinner', () => {
  test('draws nothing unless enabled; hides while a line is open; cuts text to the terminal width', () => {
    let out = '';
    const off = new Spinner({ write: (t) => (out += t) });
    off.set('x');
    off.print('text\n');
    off.stop();
    assert.equal(out, 'text\n');

    out = '';
    const on = new Spinner({ write: (t) => (out += t), enabled: true, columns: () => 10 });
    on.set('a long status text');
    assert.equal(out, '\r\x1b[2K⠙ a long…');
    out = '';
    on.print('partial');
    on.set('next');
    assert.equal(out, '\r\x1b[2Kpartial', 'no spinner on an open line');
    on.stop();
    assert.equal(out, '\r\x1b[2Kpartial\n');
  });
});

describe('rendering helpers', () => {
  test('tables pad columns, cut long cells and ignore colour codes for widths', () => {
    const colored = createStyle(true);
    const table = renderTable(['A', 'BB'], [[colored.green('x'), 'y'], ['long value here', 'z']], { maxWidth: 8 });
    assert.equal(stripAnsi(table), 'A         BB\nx         y\nlong va…  z\n');
  });

  test('parts: text runs together, data as JSON, files as one line; sizes from base64', () => {
    assert.equal(
      renderParts([{ text: 'a' }, { text: 'b' }, { data: { k: 1 } }, { raw: 'aGk=', filename: 'x.bin', mediaType: 'application/octet-stream' }, { url: 'https://e.x/f' }], plain),
      'ab\n{\n  "k": 1\n}\n[file] x.bin · application/octet-stream · 2 B\n[file] https://e.x/f',
    );
    assert.deepEqual([base64Size(''), base64Size('aA=='), base64Size('aGk='), base64Size('aGVsbG8=')], [0, 1, 2, 5]);
    assert.equal(stateName('TASK_STATE_INPUT_REQUIRED'), 'input-required');
  });

  test('colours only on a terminal without NO_COLOR', () => {
    assert.equal(colorsWanted({ isTTY: true }, {}), true);
    assert.equal(colorsWanted({ isTTY: true }, { NO_COLOR: '1' }), false);
    assert.equal(colorsWanted({ isTTY: false }, {}), false);
    assert.equal(colorsWanted({}, {}), false);
  });
});

describe('arguments', () => {
  test('--status takes short, upper-case and full names', () => {
    for (const [input, state] of [
      ['working', 'TASK_STATE_WORKING'],
      ['input-required', 'TASK_STATE_INPUT_REQUIRED'],
      ['Input_Required', 'TASK_STATE_INPUT_REQUIRED'],
      ['TASK_STATE_AUTH_REQUIRED', 'TASK_STATE_AUTH_REQUIRED'],
      ['cancelled', 'TASK_STATE_CANCELED'],
    ]) {
      assert.equal(parseState(input as string), state);
    }
    assert.throws(() => parseState('done'), UsageError);
    assert.throws(() => parseState('unspecified'), UsageError);
  });

  test('--header K=V and "K: V"; --binding names; integers', () => {
    assert.deepEqual(headersOf(['X-A=1', 'X-B: two words', 'X-C=a=b']), { 'x-a': '1', 'x-b': 'two words', 'x-c': 'a=b' });
    assert.throws(() => headersOf(['=x']), UsageError);
    assert.throws(() => headersOf(['bad header=x']), UsageError);
    assert.deepEqual(['jsonrpc', 'REST', 'http+json', 'grpc'].map(bindingOf), ['JSONRPC', 'HTTP+JSON', 'HTTP+JSON', 'GRPC']);
    assert.throws(() => bindingOf('soap'), UsageError);
    assert.equal(intOption('5', '--n', { min: 1 }), 5);
    assert.throws(() => intOption('1.5', '--n', { min: 1 }), /--n must be an integer ≥ 1/);
    assert.throws(() => intOption('101', '--n', { min: 1, max: 100 }), /from 1 to 100/);
  });
});

describe('exit codes', () => {
  test('protocol 3, client 4, usage 2, chosen, internal 1; tasks: 5 for FAILED, REJECTED, CANCELED', () => {
    assert.equal(exitCodeOf(new TaskNotFoundError()), EXIT.PROTOCOL);
    assert.equal(exitCodeOf(new A2AClientError('NETWORK', 'down')), EXIT.CLIENT);
    assert.equal(exitCodeOf(new UsageError('bad')), EXIT.USAGE);
    assert.equal(exitCodeOf(new CliError('gRPC binding not available', EXIT.USAGE)), 2);
    assert.equal(exitCodeOf(new Error('bug')), EXIT.INTERNAL);
    for (const [state, code] of [
      ['TASK_STATE_COMPLETED', 0],
      ['TASK_STATE_INPUT_REQUIRED', 0],
      ['TASK_STATE_WORKING', 0],
      ['TASK_STATE_FAILED', 5],
      ['TASK_STATE_REJECTED', 5],
      ['TASK_STATE_CANCELED', 5],
    ] as const) {
      assert.equal(taskExitCode(task(state)), code, state);
    }
    assert.equal(taskExitCode(undefined), 0, 'a direct reply');
  });

  test('reports: the network cause is named; a timeout is not blamed on the network', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    const network = new A2AClientError('NETWORK', 'Could not reach http://x', { cause: new TypeError('fetch failed', { cause: refused }) });
    assert.equal(reportOf(network).message, 'Could not reach http://x (connect ECONNREFUSED 127.0.0.1:9)');
    const timeout = new A2AClientError('TIMEOUT', 'The call timed out', { cause: network });
    assert.equal(reportOf(timeout).message, 'The call timed out');
    assert.deepEqual(reportOf(new TaskNotFoundError('Task x not found', { metadata: { taskId: 'x' } })), {
      type: 'protocol',
      code: 'TASK_NOT_FOUND',
      message: 'Task x not found',
      metadata: { taskId: 'x' },
      exitCode: 3,
    });
  });
});

describe('docs/cli.md', () => {
  test('documents every client command, every option of its --help, and the exit codes', async () => {
    const { readFile } = await import('node:fs/promises');
    const doc = await readFile(new URL('../../docs/cli.md', import.meta.url), 'utf8');
    const helps: Record<string, string> = {
      card: (await import('../../src/cli/commands/card.js')).cardHelp,
      send: (await import('../../src/cli/commands/send.js')).sendHelp,
      stream: (await import('../../src/cli/commands/stream.js')).streamHelp,
      chat: (await import('../../src/cli/commands/chat.js')).chatHelp,
      get: (await import('../../src/cli/commands/get.js')).getHelp,
      list: (await import('../../src/cli/commands/list.js')).listHelp,
      cancel: (await import('../../src/cli/commands/cancel.js')).cancelHelp,
      subscribe: (await import('../../src/cli/commands/subscribe.js')).subscribeHelp,
    };
    for (const [command, help] of Object.entries(helps)) {
      assert.match(doc, new RegExp(`^## a2a ${command}$`, 'm'), command);
      for (const option of new Set(help.match(/--[a-z][a-z-]+/g) ?? [])) assert.ok(doc.includes(option), `${command} ${option}`);
    }
    for (const [code, meaning] of Object.entries({ 0: 'success', 2: 'usage error', 3: 'protocol error', 4: 'network or local client error', 5: 'the task ended FAILED, REJECTED or CANCELED' })) {
      assert.match(doc, new RegExp(`^\\| ${code} \\| ${meaning}`, 'm'), `exit code ${code}`);
    }
    assert.deepEqual(EXIT, { OK: 0, INTERNAL: 1, USAGE: 2, PROTOCOL: 3, CLIENT: 4, TASK: 5 });
  });
});
