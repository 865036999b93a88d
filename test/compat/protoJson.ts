/**
 * The protobuf-es check the compat suites share: translated 1.0 JSON must be ProtoJSON of the
 * generated schemas (re-exported here, the ones those suites check against).
 */
import { fromJson, type DescMessage } from '@bufbuild/protobuf';

export {
  AgentCardSchema,
  MessageSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  TaskPushNotificationConfigSchema,
  TaskSchema,
} from '../../src/gen/a2a_pb.js';

/** protobuf-es accepts it as ProtoJSON of `schema` (unknown members, bad enums and wrong types throw). */
export function assertProto(schema: DescMessage, value: unknown): void {
  fromJson(schema, value as never);
}
