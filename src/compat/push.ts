/**
 * Push notification configs between A2A 0.3 and 1.0 (digest §5.3, §5.7): 0.3 nests a
 * `PushNotificationConfig` under `{taskId, pushNotificationConfig}` and lists several auth
 * `schemes`; 1.0 flattens everything into `TaskPushNotificationConfig` with one `scheme`.
 */
import { invalidField } from '../protocol/errors.js';
import type { AuthenticationInfo, TaskPushNotificationConfig } from '../protocol/types.js';
import { asArray, asObj, join } from './read.js';
import type { V03PushNotificationAuthenticationInfo, V03PushNotificationConfig, V03TaskPushNotificationConfig } from './v03Types.js';

/** 1.0 → 0.3. `taskId` and `tenant` are not part of the 0.3 PushNotificationConfig. */
export function pushConfigToV03(config: TaskPushNotificationConfig): V03PushNotificationConfig {
  const out: V03PushNotificationConfig = { url: config.url };
  if (config.id !== undefined) out.id = config.id;
  if (config.token !== undefined) out.token = config.token;
  if (config.authentication !== undefined) out.authentication = authToV03(config.authentication);
  return out;
}

function authToV03(auth: AuthenticationInfo): V03PushNotificationAuthenticationInfo {
  const out: V03PushNotificationAuthenticationInfo = { schemes: [auth.scheme] };
  if (auth.credentials !== undefined) out.credentials = auth.credentials;
  return out;
}

/**
 * 0.3 → 1.0 (the config part only; `taskId` is added by the caller). Lossy: only the first of
 * several `schemes` survives (1.0 has one). An `authentication` with no scheme and no
 * credentials carries nothing and is dropped; with credentials but no scheme it is rejected.
 */
export function pushConfigToV10(input: unknown, field = 'pushNotificationConfig'): TaskPushNotificationConfig {
  const config = asObj(input, field);
  const out: TaskPushNotificationConfig = { url: config.url as string };
  if (config.id !== undefined) out.id = config.id as string;
  if (config.token !== undefined) out.token = config.token as string;
  if (config.authentication !== undefined && config.authentication !== null) {
    const auth = asObj(config.authentication, join(field, 'authentication'));
    const schemes = auth.schemes === undefined ? [] : asArray(auth.schemes, join(field, 'authentication.schemes'));
    if (schemes.length > 0) {
      out.authentication = { scheme: schemes[0] as string };
      if (auth.credentials !== undefined) out.authentication.credentials = auth.credentials as string;
    } else if (auth.credentials !== undefined) {
      throw invalidField(join(field, 'authentication.schemes'), 'must name a scheme when credentials are given');
    }
  }
  return out;
}

/** 1.0 flat config → 0.3 `{taskId, pushNotificationConfig}`. */
export function taskPushConfigToV03(config: TaskPushNotificationConfig): V03TaskPushNotificationConfig {
  return { taskId: config.taskId ?? '', pushNotificationConfig: pushConfigToV03(config) };
}

/** 0.3 `{taskId, pushNotificationConfig}` → 1.0 flat config. */
export function taskPushConfigToV10(input: unknown, field = ''): TaskPushNotificationConfig {
  const tpnc = asObj(input, field);
  const out = pushConfigToV10(tpnc.pushNotificationConfig, join(field, 'pushNotificationConfig'));
  if (tpnc.taskId !== undefined && tpnc.taskId !== '') out.taskId = tpnc.taskId as string;
  return out;
}
