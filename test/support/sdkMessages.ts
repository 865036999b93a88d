/** Building blocks of the official @a2a-js/sdk 1.x agents used in tests and benchmarks (its proto-shaped types). */
import { Role, type AgentCard, type AgentInterface, type Message, type Part, type TaskState } from '@a2a-js/sdk';

export const textPart = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: '' });

export const textOf = (m: Message): string => m.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('\n');

export const status = (state: TaskState, message?: Message) => ({ state, message, timestamp: new Date().toISOString() });

export const agentMessage = (text: string, contextId: string, taskId: string): Message => ({
  messageId: crypto.randomUUID(),
  contextId,
  taskId,
  role: Role.ROLE_AGENT,
  parts: [textPart(text)],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

/** A minimal SDK agent card (streaming, no push) listing `interfaces`. */
export const sdkCard = (about: { name: string; description: string }, interfaces: AgentInterface[]): AgentCard => ({
  ...about,
  supportedInterfaces: interfaces,
  provider: undefined,
  version: '1.0.0',
  capabilities: { streaming: true, pushNotifications: false, extensions: [] },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
  signatures: [],
});
