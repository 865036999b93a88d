/** An Agent Card, for humans: identity, interfaces, capabilities, security, modes and skills. */
import type { AgentCard, SecurityScheme } from '../../protocol/types.js';
import { indent } from './parts.js';
import type { Style } from './style.js';
import { renderTable } from './table.js';

function scheme(name: string, s: SecurityScheme): string {
  if ('apiKeySecurityScheme' in s) return `${name}: API key (${s.apiKeySecurityScheme.location} ${s.apiKeySecurityScheme.name})`;
  if ('httpAuthSecurityScheme' in s) return `${name}: HTTP ${s.httpAuthSecurityScheme.scheme}`;
  if ('oauth2SecurityScheme' in s) return `${name}: OAuth2 (${Object.keys(s.oauth2SecurityScheme.flows).join(', ')})`;
  if ('openIdConnectSecurityScheme' in s) return `${name}: OpenID Connect <${s.openIdConnectSecurityScheme.openIdConnectUrl}>`;
  if ('mtlsSecurityScheme' in s) return `${name}: mutual TLS`;
  return name;
}

const yesNo = (value: boolean | undefined) => (value ? 'yes' : 'no');

export interface CardRenderOptions {
  style: Style;
  /** The URL of the interface the client would use (marked with *). */
  selectedUrl?: string | undefined;
}

export function renderCard(card: AgentCard, options: CardRenderOptions): string {
  const { style } = options;
  const out: string[] = [];
  out.push(`${style.bold(card.name)}${card.version ? style.dim(`  v${card.version}`) : ''}`);
  if (card.description) out.push(card.description);
  if (card.provider) out.push(`${style.dim('provider')}  ${card.provider.organization} <${card.provider.url}>`);
  if (card.documentationUrl) out.push(`${style.dim('docs')}      ${card.documentationUrl}`);

  out.push('', style.bold('Interfaces'));
  const rows = card.supportedInterfaces.map((i) => [
    i.url === options.selectedUrl ? '*' : ' ',
    i.protocolBinding,
    String(i.protocolVersion ?? ''),
    i.url,
    i.tenant ? `tenant ${i.tenant}` : '',
  ]);
  out.push(indent(renderTable(['', 'BINDING', 'VERSION', 'URL', ''], rows, { maxWidth: 100, header: style.dim }).trimEnd(), '  '));

  const caps = card.capabilities ?? {};
  out.push('', style.bold('Capabilities'));
  out.push(`  streaming ${yesNo(caps.streaming)} · push notifications ${yesNo(caps.pushNotifications)} · extended card ${yesNo(caps.extendedAgentCard)}`);
  for (const ext of caps.extensions ?? []) {
    out.push(`  extension ${ext.uri ?? '?'}${ext.required ? style.yellow(' (required)') : ''}${ext.description ? ` — ${ext.description}` : ''}`);
  }

  const schemes = Object.entries(card.securitySchemes ?? {});
  if (schemes.length) {
    out.push('', style.bold('Security'));
    for (const [name, s] of schemes) out.push(`  ${scheme(name, s)}`);
  }

  out.push('', style.bold('Modes'));
  out.push(`  input   ${(card.defaultInputModes ?? []).join(', ') || '-'}`);
  out.push(`  output  ${(card.defaultOutputModes ?? []).join(', ') || '-'}`);

  const skills = card.skills ?? [];
  out.push('', style.bold(`Skills (${skills.length})`));
  for (const skill of skills) {
    out.push(`  ${style.cyan(skill.id)}  ${skill.name}`);
    if (skill.description) out.push(indent(skill.description, '      '));
    const extra: string[] = [];
    if (skill.tags?.length) extra.push(`tags: ${skill.tags.join(', ')}`);
    if (skill.examples?.length) extra.push(`examples: ${skill.examples.map((e) => JSON.stringify(e)).join(', ')}`);
    if (extra.length) out.push(style.dim(`      ${extra.join('   ')}`));
  }
  return `${out.join('\n')}\n`;
}
