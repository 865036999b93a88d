/**
 * Our hand-written public wire types (src/protocol/types.ts) against the proto (decision 1).
 *
 * Two halves, chained through one literal table (SPECS) written down below:
 *
 * - compile time (`npx tsc -p .`): for every message of a2a.proto, our type must be assignable
 *   to the generated ProtoJSON type (`XxxJson`, reached as MessageJsonType<typeof XxxSchema>),
 *   its key set must equal the generated one and the keys listed in SPECS, its required keys
 *   must be the REQUIRED fields listed in SPECS, and oneofs must be discriminated unions with
 *   exactly one member per variant;
 * - run time: the descriptors generated from the proto (field JSON names and numbers,
 *   field_behavior REQUIRED, oneof members, enum values, rpc list) must equal SPECS.
 *
 * So a proto change breaks the run-time half, and a types.ts change breaks the compile-time half.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getOption, type DescMessage, type MessageJsonType } from '@bufbuild/protobuf';
import * as gen from '../src/gen/a2a_pb.js';
import {
  A2AService,
  RoleSchema,
  TaskStateSchema,
  file_a2a,
  type AgentCardJson,
  type MessageJson,
  type PartJson,
  type RoleJson,
  type StreamResponseJson,
  type TaskJson,
  type TaskStateJson,
} from '../src/gen/a2a_pb.js';
import { FieldBehavior, field_behavior } from '../src/gen/google/api/field_behavior_pb.js';
import { OPERATIONS } from '../src/protocol/operations.js';
import type * as T from '../src/protocol/types.js';

// ---------------------------------------------------------------------------------------------
// Type-level helpers

/** Exact type equality (distinguishes `any`, optionality and unions). */
type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
/** Every key of every member of a union (`keyof` of a union gives only the common keys). */
type KeysOfUnion<U> = U extends unknown ? keyof U : never;
type RequiredKeys<O> = { [K in keyof O]-?: object extends Pick<O, K> ? never : K }[keyof O];
type RequiredKeysOfUnion<U> = U extends unknown ? RequiredKeys<U> : never;
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
type IsSingleKey<K> = [K] extends [never] ? false : [K] extends [UnionToIntersection<K>] ? true : false;
/** Each variant of a oneof union carries exactly one oneof member. */
type OneMemberPerVariant<U, Members> = false extends (U extends unknown ? IsSingleKey<Extract<keyof U, Members>> : never) ? false : true;

interface Spec {
  /** ProtoJSON name → field number. */
  readonly fields: Readonly<Record<string, number>>;
  /** Fields annotated (google.api.field_behavior) = REQUIRED. */
  readonly required: readonly string[];
  /** Members of the message's oneof (A2A has at most one per message). */
  readonly oneof: readonly string[];
}

/** `true`, or a sentence saying what disagrees (shown by tsc where the check fails). */
type Check<Ours, Json, S extends Spec> = [Ours] extends [Json]
  ? Equal<KeysOfUnion<Ours>, keyof Json> extends true
    ? Equal<KeysOfUnion<Ours>, keyof S['fields']> extends true
      ? Equal<RequiredKeysOfUnion<Ours>, S['required'][number] | S['oneof'][number]> extends true
        ? Equal<keyof Ours, Exclude<keyof S['fields'], S['oneof'][number]>> extends true
          ? [S['oneof'][number]] extends [never]
            ? true
            : OneMemberPerVariant<Ours, S['oneof'][number]> extends true
              ? true
              : 'a variant of the oneof union does not have exactly one member'
          : 'the keys shared by every variant are not the fields outside the oneof'
        : 'the required keys differ from the REQUIRED fields in SPECS'
      : 'the keys differ from the field list in SPECS'
    : 'the keys differ from the generated Json type'
  : 'not assignable to the generated Json type';

// ---------------------------------------------------------------------------------------------
// The literal table: every message of a2a.proto, its fields (JSON name: number), REQUIRED
// fields and oneof members, in proto order.

const none = [] as const;

const SPECS = {
  SendMessageConfiguration: {
    fields: { acceptedOutputModes: 1, taskPushNotificationConfig: 2, historyLength: 3, returnImmediately: 4 },
    required: none,
    oneof: none,
  },
  Task: {
    fields: { id: 1, contextId: 2, status: 3, artifacts: 4, history: 5, metadata: 6 },
    required: ['id', 'status'],
    oneof: none,
  },
  TaskStatus: { fields: { state: 1, message: 2, timestamp: 3 }, required: ['state'], oneof: none },
  Part: {
    fields: { text: 1, raw: 2, url: 3, data: 4, metadata: 5, filename: 6, mediaType: 7 },
    required: none,
    oneof: ['text', 'raw', 'url', 'data'],
  },
  Message: {
    fields: { messageId: 1, contextId: 2, taskId: 3, role: 4, parts: 5, metadata: 6, extensions: 7, referenceTaskIds: 8 },
    required: ['messageId', 'role', 'parts'],
    oneof: none,
  },
  Artifact: {
    fields: { artifactId: 1, name: 2, description: 3, parts: 4, metadata: 5, extensions: 6 },
    required: ['artifactId', 'parts'],
    oneof: none,
  },
  TaskStatusUpdateEvent: {
    fields: { taskId: 1, contextId: 2, status: 3, metadata: 4 },
    required: ['taskId', 'contextId', 'status'],
    oneof: none,
  },
  TaskArtifactUpdateEvent: {
    fields: { taskId: 1, contextId: 2, artifact: 3, append: 4, lastChunk: 5, metadata: 6 },
    required: ['taskId', 'contextId', 'artifact'],
    oneof: none,
  },
  AuthenticationInfo: { fields: { scheme: 1, credentials: 2 }, required: ['scheme'], oneof: none },
  AgentInterface: {
    fields: { url: 1, protocolBinding: 2, tenant: 3, protocolVersion: 4 },
    required: ['url', 'protocolBinding', 'protocolVersion'],
    oneof: none,
  },
  AgentCard: {
    fields: {
      name: 1,
      description: 2,
      supportedInterfaces: 3,
      provider: 4,
      version: 5,
      documentationUrl: 6,
      capabilities: 7,
      securitySchemes: 8,
      securityRequirements: 9,
      defaultInputModes: 10,
      defaultOutputModes: 11,
      skills: 12,
      signatures: 13,
      iconUrl: 14,
    },
    required: ['name', 'description', 'supportedInterfaces', 'version', 'capabilities', 'defaultInputModes', 'defaultOutputModes', 'skills'],
    oneof: none,
  },
  AgentProvider: { fields: { url: 1, organization: 2 }, required: ['url', 'organization'], oneof: none },
  AgentCapabilities: {
    fields: { streaming: 1, pushNotifications: 2, extensions: 3, extendedAgentCard: 4 },
    required: none,
    oneof: none,
  },
  AgentExtension: { fields: { uri: 1, description: 2, required: 3, params: 4 }, required: none, oneof: none },
  AgentSkill: {
    fields: { id: 1, name: 2, description: 3, tags: 4, examples: 5, inputModes: 6, outputModes: 7, securityRequirements: 8 },
    required: ['id', 'name', 'description', 'tags'],
    oneof: none,
  },
  AgentCardSignature: { fields: { protected: 1, signature: 2, header: 3 }, required: ['protected', 'signature'], oneof: none },
  TaskPushNotificationConfig: {
    fields: { tenant: 1, id: 2, taskId: 3, url: 4, token: 5, authentication: 6 },
    required: ['url'],
    oneof: none,
  },
  StringList: { fields: { list: 1 }, required: none, oneof: none },
  SecurityRequirement: { fields: { schemes: 1 }, required: none, oneof: none },
  SecurityScheme: {
    fields: { apiKeySecurityScheme: 1, httpAuthSecurityScheme: 2, oauth2SecurityScheme: 3, openIdConnectSecurityScheme: 4, mtlsSecurityScheme: 5 },
    required: none,
    oneof: ['apiKeySecurityScheme', 'httpAuthSecurityScheme', 'oauth2SecurityScheme', 'openIdConnectSecurityScheme', 'mtlsSecurityScheme'],
  },
  APIKeySecurityScheme: { fields: { description: 1, location: 2, name: 3 }, required: ['location', 'name'], oneof: none },
  HTTPAuthSecurityScheme: { fields: { description: 1, scheme: 2, bearerFormat: 3 }, required: ['scheme'], oneof: none },
  OAuth2SecurityScheme: { fields: { description: 1, flows: 2, oauth2MetadataUrl: 3 }, required: ['flows'], oneof: none },
  OpenIdConnectSecurityScheme: { fields: { description: 1, openIdConnectUrl: 2 }, required: ['openIdConnectUrl'], oneof: none },
  MutualTlsSecurityScheme: { fields: { description: 1 }, required: none, oneof: none },
  OAuthFlows: {
    fields: { authorizationCode: 1, clientCredentials: 2, implicit: 3, password: 4, deviceCode: 5 },
    required: none,
    oneof: ['authorizationCode', 'clientCredentials', 'implicit', 'password', 'deviceCode'],
  },
  AuthorizationCodeOAuthFlow: {
    fields: { authorizationUrl: 1, tokenUrl: 2, refreshUrl: 3, scopes: 4, pkceRequired: 5 },
    required: ['authorizationUrl', 'tokenUrl', 'scopes'],
    oneof: none,
  },
  ClientCredentialsOAuthFlow: { fields: { tokenUrl: 1, refreshUrl: 2, scopes: 3 }, required: ['tokenUrl', 'scopes'], oneof: none },
  ImplicitOAuthFlow: { fields: { authorizationUrl: 1, refreshUrl: 2, scopes: 3 }, required: none, oneof: none },
  PasswordOAuthFlow: { fields: { tokenUrl: 1, refreshUrl: 2, scopes: 3 }, required: none, oneof: none },
  DeviceCodeOAuthFlow: {
    fields: { deviceAuthorizationUrl: 1, tokenUrl: 2, refreshUrl: 3, scopes: 4 },
    required: ['deviceAuthorizationUrl', 'tokenUrl', 'scopes'],
    oneof: none,
  },
  SendMessageRequest: { fields: { tenant: 1, message: 2, configuration: 3, metadata: 4 }, required: ['message'], oneof: none },
  GetTaskRequest: { fields: { tenant: 1, id: 2, historyLength: 3 }, required: ['id'], oneof: none },
  ListTasksRequest: {
    fields: { tenant: 1, contextId: 2, status: 3, pageSize: 4, pageToken: 5, historyLength: 6, statusTimestampAfter: 7, includeArtifacts: 8 },
    required: none,
    oneof: none,
  },
  ListTasksResponse: {
    fields: { tasks: 1, nextPageToken: 2, pageSize: 3, totalSize: 4 },
    required: ['tasks', 'nextPageToken', 'pageSize', 'totalSize'],
    oneof: none,
  },
  CancelTaskRequest: { fields: { tenant: 1, id: 2, metadata: 3 }, required: ['id'], oneof: none },
  GetTaskPushNotificationConfigRequest: { fields: { tenant: 1, taskId: 2, id: 3 }, required: ['taskId', 'id'], oneof: none },
  DeleteTaskPushNotificationConfigRequest: { fields: { tenant: 1, taskId: 2, id: 3 }, required: ['taskId', 'id'], oneof: none },
  SubscribeToTaskRequest: { fields: { tenant: 1, id: 2 }, required: ['id'], oneof: none },
  // GRPC-07: tenant is field 4 here, task_id field 1.
  ListTaskPushNotificationConfigsRequest: { fields: { taskId: 1, pageSize: 2, pageToken: 3, tenant: 4 }, required: ['taskId'], oneof: none },
  GetExtendedAgentCardRequest: { fields: { tenant: 1 }, required: none, oneof: none },
  SendMessageResponse: { fields: { task: 1, message: 2 }, required: none, oneof: ['task', 'message'] },
  StreamResponse: {
    fields: { task: 1, message: 2, statusUpdate: 3, artifactUpdate: 4 },
    required: none,
    oneof: ['task', 'message', 'statusUpdate', 'artifactUpdate'],
  },
  ListTaskPushNotificationConfigsResponse: { fields: { configs: 1, nextPageToken: 2 }, required: none, oneof: none },
} as const satisfies Record<string, Spec>;

/** Message name → [our public type, generated descriptor]. */
interface Pairs {
  SendMessageConfiguration: [T.SendMessageConfiguration, typeof gen.SendMessageConfigurationSchema];
  Task: [T.Task, typeof gen.TaskSchema];
  TaskStatus: [T.TaskStatus, typeof gen.TaskStatusSchema];
  Part: [T.Part, typeof gen.PartSchema];
  Message: [T.Message, typeof gen.MessageSchema];
  Artifact: [T.Artifact, typeof gen.ArtifactSchema];
  TaskStatusUpdateEvent: [T.TaskStatusUpdateEvent, typeof gen.TaskStatusUpdateEventSchema];
  TaskArtifactUpdateEvent: [T.TaskArtifactUpdateEvent, typeof gen.TaskArtifactUpdateEventSchema];
  AuthenticationInfo: [T.AuthenticationInfo, typeof gen.AuthenticationInfoSchema];
  AgentInterface: [T.AgentInterface, typeof gen.AgentInterfaceSchema];
  AgentCard: [T.AgentCard, typeof gen.AgentCardSchema];
  AgentProvider: [T.AgentProvider, typeof gen.AgentProviderSchema];
  AgentCapabilities: [T.AgentCapabilities, typeof gen.AgentCapabilitiesSchema];
  AgentExtension: [T.AgentExtension, typeof gen.AgentExtensionSchema];
  AgentSkill: [T.AgentSkill, typeof gen.AgentSkillSchema];
  AgentCardSignature: [T.AgentCardSignature, typeof gen.AgentCardSignatureSchema];
  TaskPushNotificationConfig: [T.TaskPushNotificationConfig, typeof gen.TaskPushNotificationConfigSchema];
  StringList: [T.StringList, typeof gen.StringListSchema];
  SecurityRequirement: [T.SecurityRequirement, typeof gen.SecurityRequirementSchema];
  SecurityScheme: [T.SecurityScheme, typeof gen.SecuritySchemeSchema];
  APIKeySecurityScheme: [T.APIKeySecurityScheme, typeof gen.APIKeySecuritySchemeSchema];
  HTTPAuthSecurityScheme: [T.HTTPAuthSecurityScheme, typeof gen.HTTPAuthSecuritySchemeSchema];
  OAuth2SecurityScheme: [T.OAuth2SecurityScheme, typeof gen.OAuth2SecuritySchemeSchema];
  OpenIdConnectSecurityScheme: [T.OpenIdConnectSecurityScheme, typeof gen.OpenIdConnectSecuritySchemeSchema];
  MutualTlsSecurityScheme: [T.MutualTlsSecurityScheme, typeof gen.MutualTlsSecuritySchemeSchema];
  OAuthFlows: [T.OAuthFlows, typeof gen.OAuthFlowsSchema];
  AuthorizationCodeOAuthFlow: [T.AuthorizationCodeOAuthFlow, typeof gen.AuthorizationCodeOAuthFlowSchema];
  ClientCredentialsOAuthFlow: [T.ClientCredentialsOAuthFlow, typeof gen.ClientCredentialsOAuthFlowSchema];
  ImplicitOAuthFlow: [T.ImplicitOAuthFlow, typeof gen.ImplicitOAuthFlowSchema];
  PasswordOAuthFlow: [T.PasswordOAuthFlow, typeof gen.PasswordOAuthFlowSchema];
  DeviceCodeOAuthFlow: [T.DeviceCodeOAuthFlow, typeof gen.DeviceCodeOAuthFlowSchema];
  SendMessageRequest: [T.SendMessageRequest, typeof gen.SendMessageRequestSchema];
  GetTaskRequest: [T.GetTaskRequest, typeof gen.GetTaskRequestSchema];
  ListTasksRequest: [T.ListTasksRequest, typeof gen.ListTasksRequestSchema];
  ListTasksResponse: [T.ListTasksResponse, typeof gen.ListTasksResponseSchema];
  CancelTaskRequest: [T.CancelTaskRequest, typeof gen.CancelTaskRequestSchema];
  GetTaskPushNotificationConfigRequest: [T.GetTaskPushNotificationConfigRequest, typeof gen.GetTaskPushNotificationConfigRequestSchema];
  DeleteTaskPushNotificationConfigRequest: [T.DeleteTaskPushNotificationConfigRequest, typeof gen.DeleteTaskPushNotificationConfigRequestSchema];
  SubscribeToTaskRequest: [T.SubscribeToTaskRequest, typeof gen.SubscribeToTaskRequestSchema];
  ListTaskPushNotificationConfigsRequest: [T.ListTaskPushNotificationConfigsRequest, typeof gen.ListTaskPushNotificationConfigsRequestSchema];
  GetExtendedAgentCardRequest: [T.GetExtendedAgentCardRequest, typeof gen.GetExtendedAgentCardRequestSchema];
  SendMessageResponse: [T.SendMessageResponse, typeof gen.SendMessageResponseSchema];
  StreamResponse: [T.StreamResponse, typeof gen.StreamResponseSchema];
  ListTaskPushNotificationConfigsResponse: [T.ListTaskPushNotificationConfigsResponse, typeof gen.ListTaskPushNotificationConfigsResponseSchema];
}

type Results = { [K in keyof Pairs]: Check<Pairs[K][0], MessageJsonType<Pairs[K][1]>, (typeof SPECS)[K]> };
/** Messages whose check is not `true`; tsc names each one with the reason if this is not empty. */
type Failures = { [K in keyof Results as Results[K] extends true ? never : K]: Results[K] };
const noFailures: Failures = {};

type Assert<B extends true> = B;
export type TypeAssertions = [
  Assert<Equal<keyof Pairs, keyof typeof SPECS>>,
  // MessageJsonType<typeof XxxSchema> is the generated XxxJson; spot-check the link.
  Assert<Equal<MessageJsonType<typeof gen.TaskSchema>, TaskJson>>,
  Assert<Equal<MessageJsonType<typeof gen.PartSchema>, PartJson>>,
  Assert<Equal<MessageJsonType<typeof gen.MessageSchema>, MessageJson>>,
  Assert<Equal<MessageJsonType<typeof gen.StreamResponseSchema>, StreamResponseJson>>,
  Assert<Equal<MessageJsonType<typeof gen.AgentCardSchema>, AgentCardJson>>,
  // Enums are their names as strings (JSON-03).
  Assert<Equal<T.TaskState, TaskStateJson>>,
  Assert<Equal<T.Role, RoleJson>>,
  Assert<Equal<T.TaskState, keyof typeof ENUMS.TaskState>>,
  Assert<Equal<T.Role, keyof typeof ENUMS.Role>>,
  // Part variants carry exactly their member (JSON-08) plus the shared fields.
  Assert<Equal<keyof T.TextPart, 'text' | 'metadata' | 'filename' | 'mediaType'>>,
  Assert<Equal<keyof T.RawPart, 'raw' | 'metadata' | 'filename' | 'mediaType'>>,
  Assert<Equal<keyof T.UrlPart, 'url' | 'metadata' | 'filename' | 'mediaType'>>,
  Assert<Equal<keyof T.DataPart, 'data' | 'metadata' | 'filename' | 'mediaType'>>,
  Assert<Equal<T.DataPart['data'], T.JsonValue>>,
];

// ---- operations: the request/response types of each rpc ------------------------------------

type Methods = typeof A2AService.method;
type Streaming<K extends keyof Methods> = Methods[K]['methodKind'] extends 'server_streaming' ? true : false;
type OperationChecks = {
  [K in keyof Methods]: K extends keyof T.OperationRequests
    ? [T.OperationRequests[K]] extends [MessageJsonType<Methods[K]['input']>]
      ? Streaming<K> extends true
        ? K extends T.StreamingOperationName
          ? [T.StreamResponse] extends [MessageJsonType<Methods[K]['output']>]
            ? true
            : 'StreamResponse does not fit the output'
          : 'streaming rpc missing from StreamingOperationName'
        : K extends keyof T.OperationResponses
          ? [T.OperationResponses[K]] extends [MessageJsonType<Methods[K]['output']>]
            ? true
            : 'OperationResponses entry not assignable to the output Json type'
          : 'unary rpc missing from OperationResponses'
      : 'OperationRequests entry not assignable to the input Json type'
    : 'rpc missing from OperationRequests';
};
type OperationFailures = { [K in keyof OperationChecks as OperationChecks[K] extends true ? never : K]: OperationChecks[K] };
const noOperationFailures: OperationFailures = {};

export type OperationAssertions = [
  Assert<Equal<keyof Methods, T.OperationName>>,
  Assert<Equal<Exclude<T.OperationName, T.StreamingOperationName>, T.UnaryOperationName>>,
];

// ---------------------------------------------------------------------------------------------
// Run time: the descriptors against the literal table

const ENUMS = {
  TaskState: {
    TASK_STATE_UNSPECIFIED: 0,
    TASK_STATE_SUBMITTED: 1,
    TASK_STATE_WORKING: 2,
    TASK_STATE_COMPLETED: 3,
    TASK_STATE_FAILED: 4,
    TASK_STATE_CANCELED: 5,
    TASK_STATE_INPUT_REQUIRED: 6,
    TASK_STATE_REJECTED: 7,
    TASK_STATE_AUTH_REQUIRED: 8,
  },
  Role: { ROLE_UNSPECIFIED: 0, ROLE_USER: 1, ROLE_AGENT: 2 },
} as const;

const OPERATION_LIST = [
  ['sendMessage', 'SendMessage', false],
  ['sendStreamingMessage', 'SendStreamingMessage', true],
  ['getTask', 'GetTask', false],
  ['listTasks', 'ListTasks', false],
  ['cancelTask', 'CancelTask', false],
  ['subscribeToTask', 'SubscribeToTask', true],
  ['createTaskPushNotificationConfig', 'CreateTaskPushNotificationConfig', false],
  ['getTaskPushNotificationConfig', 'GetTaskPushNotificationConfig', false],
  ['listTaskPushNotificationConfigs', 'ListTaskPushNotificationConfigs', false],
  ['getExtendedAgentCard', 'GetExtendedAgentCard', false],
  ['deleteTaskPushNotificationConfig', 'DeleteTaskPushNotificationConfig', false],
] as const satisfies readonly (readonly [T.OperationName, string, boolean])[];

function specOf(desc: DescMessage): Spec {
  return {
    fields: Object.fromEntries(desc.fields.map((f) => [f.jsonName, f.number])),
    required: desc.fields.filter((f) => getOption(f, field_behavior).includes(FieldBehavior.REQUIRED)).map((f) => f.jsonName),
    oneof: desc.oneofs.flatMap((o) => o.fields.map((f) => f.jsonName)),
  };
}

function schemaFor(name: string): DescMessage {
  const schema = (gen as unknown as Record<string, unknown>)[`${name}Schema`] as DescMessage | undefined;
  assert.ok(schema, `src/gen/a2a_pb.ts exports no ${name}Schema`);
  return schema;
}

test('the compile-time checks hold (a failure here is also a tsc error)', () => {
  assert.deepEqual(noFailures, {});
  assert.deepEqual(noOperationFailures, {});
});

test('every message of a2a.proto has an entry in the table, and nothing else does', () => {
  const inProto = file_a2a.messages.map((m) => m.name).sort();
  assert.deepEqual(Object.keys(SPECS).sort(), inProto);
  assert.equal(inProto.length, 44, 'digest §2: the proto defines 44 messages');
  for (const m of file_a2a.messages) assert.equal(m.typeName, `lf.a2a.v1.${m.name}`);
});

for (const [name, expected] of Object.entries(SPECS) as [string, Spec][]) {
  test(`${name}: JSON names, field numbers, REQUIRED fields and oneof agree with the proto`, () => {
    const actual = specOf(schemaFor(name));
    assert.deepEqual(actual.fields, expected.fields, `${name} fields (jsonName → number)`);
    // Field order too, as declared in the proto.
    assert.deepEqual(Object.keys(actual.fields), Object.keys(expected.fields), `${name} field order`);
    assert.deepEqual(actual.required, [...expected.required], `${name} REQUIRED fields`);
    assert.deepEqual(actual.oneof, [...expected.oneof], `${name} oneof members`);
  });
}

test('the oneof of every message is a single group (the unions above assume it)', () => {
  for (const m of file_a2a.messages) assert.ok(m.oneofs.length <= 1, `${m.name} has ${m.oneofs.length} oneofs`);
});

test('enums: value names and numbers (JSON-03)', () => {
  assert.deepEqual(Object.fromEntries(TaskStateSchema.values.map((v) => [v.name, v.number])), ENUMS.TaskState);
  assert.deepEqual(Object.fromEntries(RoleSchema.values.map((v) => [v.name, v.number])), ENUMS.Role);
  assert.deepEqual(
    file_a2a.enums.map((e) => e.name),
    ['TaskState', 'Role'],
  );
});

test('the eleven rpcs: names, order and streaming, also as seen by OPERATIONS', () => {
  assert.equal(A2AService.typeName, 'lf.a2a.v1.A2AService');
  assert.deepEqual(
    A2AService.methods.map((m) => [m.localName, m.name, m.methodKind === 'server_streaming']),
    OPERATION_LIST.map((row) => [...row]),
  );
  assert.deepEqual(
    [...OPERATIONS.values()].map((op) => [op.name, op.rpc, op.streaming]),
    OPERATION_LIST.map((row) => [...row]),
  );
  for (const m of A2AService.methods) {
    assert.equal(OPERATIONS.get(m.localName as T.OperationName)?.request, m.input, `${m.name} request schema`);
  }
});

test('values written with our types are valid ProtoJSON for the generated schemas', async () => {
  const { fromJson, toJson } = await import('@bufbuild/protobuf');
  const task: T.Task = {
    id: 't1',
    contextId: 'c1',
    status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-01-05T09:13:02.004Z' },
    artifacts: [
      {
        artifactId: 'a1',
        parts: [
          { text: 'hello' },
          { raw: 'aGVsbG8=', mediaType: 'text/plain', filename: 'hello.txt' },
          { url: 'https://example.org/x', mediaType: 'text/html' },
          { data: { n: 1, list: [true, null, 'x'] } },
        ],
      },
    ],
    history: [{ messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }], metadata: { k: 'v' } }],
  };
  const events: T.StreamResponse[] = [
    { task },
    { statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } } },
    { artifactUpdate: { taskId: 't1', contextId: 'c1', artifact: { artifactId: 'a1', parts: [{ text: 'x' }] }, append: true, lastChunk: true } },
    { message: { messageId: 'm2', role: 'ROLE_AGENT', parts: [{ text: 'ok' }] } },
  ];
  for (const event of events) {
    // ProtoJSON round trip through the generated schema gives the same JSON back.
    const json = toJson(gen.StreamResponseSchema, fromJson(gen.StreamResponseSchema, event as MessageJsonType<typeof gen.StreamResponseSchema>));
    assert.deepEqual(json, event);
  }
  const card: T.AgentCard = {
    name: 'n',
    description: 'd',
    supportedInterfaces: [{ url: 'http://localhost/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    version: '1',
    capabilities: { streaming: true, extensions: [{ uri: 'urn:x', required: true }] },
    securitySchemes: {
      key: { apiKeySecurityScheme: { location: 'header', name: 'X-Key' } },
      oauth: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://id.example/token', scopes: { read: 'Read' } } } } },
    },
    securityRequirements: [{ schemes: { key: { list: [] }, oauth: { list: ['read'] } } }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 's', name: 'S', description: 'd', tags: ['t'] }],
  };
  const roundTrip = toJson(gen.AgentCardSchema, fromJson(gen.AgentCardSchema, card as MessageJsonType<typeof gen.AgentCardSchema>));
  // ProtoJSON drops the empty `list`; everything else survives unchanged.
  const expected = structuredClone(card) as { securityRequirements: { schemes: Record<string, { list?: string[] }> }[] };
  delete expected.securityRequirements[0]?.schemes.key?.list;
  assert.deepEqual(roundTrip, expected);
});
