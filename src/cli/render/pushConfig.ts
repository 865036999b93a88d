/**
 * A task's push notification config, for humans: id, task, webhook URL, whether a token is set,
 * and the authentication scheme. Secrets never appear: the token shows as `set`/`none`, the
 * credentials as `***`, and so do a user name or password and credential-named query parameters
 * of the URL (`?access_token=***`, ../redact.ts).
 */
import type { TaskPushNotificationConfig } from '../../protocol/types.js';
import { MASK } from '../../net/secretParams.js';
import { redactUrls } from '../redact.js';
import type { Style } from './style.js';

export function renderPushConfig(config: TaskPushNotificationConfig, style: Style): string {
  const lines: string[] = [];
  lines.push(`${style.bold('config')}   ${config.id ?? style.dim('(no id)')}`);
  if (config.taskId) lines.push(`${style.dim('task')}     ${config.taskId}`);
  if (config.tenant) lines.push(`${style.dim('tenant')}   ${config.tenant}`);
  lines.push(`${style.dim('url')}      ${redactUrls(config.url)}`);
  lines.push(`${style.dim('token')}    ${config.token ? 'set' : 'none'}`);
  const auth = config.authentication;
  const scheme = auth?.scheme ? `${auth.scheme}${auth.credentials ? ` ${MASK}` : ''}` : auth?.credentials ? MASK : 'none';
  lines.push(`${style.dim('auth')}     ${scheme}`);
  return `${lines.join('\n')}\n`;
}

/** Several configs: one block each, a blank line between. */
export function renderPushConfigs(configs: TaskPushNotificationConfig[], style: Style): string {
  return configs.map((c) => renderPushConfig(c, style)).join('\n');
}
