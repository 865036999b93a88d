/**
 * The SIGN-03 presence rules of AgentCard and every message inside it, generated from the
 * descriptors of proto/a2a.proto by ./presencePlan.ts. Do not edit: run
 * `npx tsx src/signing/presencePlan.ts --write` (test/signing/presence.test.ts checks it).
 * Plain data, so the runtime-neutral client applies the rules without the protobuf runtime.
 */

/**
 * Per message, one rule per field: `jsonName:presence[:child]`. presence: `r` REQUIRED (always
 * kept), `o` explicit presence (`optional` or a oneof member: kept whenever set), `d` implicit
 * (omitted at its default), followed by `m` for a map. child: a message name, `*` for arbitrary JSON (Struct/Value), or
 * `=NAME` for an enum whose default is NAME.
 */
export interface PresenceTable {
  root: string;
  messages: Record<string, string[]>;
}

export const AGENT_CARD_PRESENCE: PresenceTable = {
  root: 'AgentCard',
  messages: {
    AgentCard: ['name:r', 'description:r', 'supportedInterfaces:r:AgentInterface', 'provider:d:AgentProvider', 'version:r', 'documentationUrl:o', 'capabilities:r:AgentCapabilities', 'securitySchemes:dm:SecurityScheme', 'securityRequirements:d:SecurityRequirement', 'defaultInputModes:r', 'defaultOutputModes:r', 'skills:r:AgentSkill', 'signatures:d:AgentCardSignature', 'iconUrl:o'],
    AgentInterface: ['url:r', 'protocolBinding:r', 'tenant:d', 'protocolVersion:r'],
    AgentProvider: ['url:r', 'organization:r'],
    AgentCapabilities: ['streaming:o', 'pushNotifications:o', 'extensions:d:AgentExtension', 'extendedAgentCard:o'],
    AgentExtension: ['uri:d', 'description:d', 'required:d', 'params:d:*'],
    SecurityScheme: ['apiKeySecurityScheme:o:APIKeySecurityScheme', 'httpAuthSecurityScheme:o:HTTPAuthSecurityScheme', 'oauth2SecurityScheme:o:OAuth2SecurityScheme', 'openIdConnectSecurityScheme:o:OpenIdConnectSecurityScheme', 'mtlsSecurityScheme:o:MutualTlsSecurityScheme'],
    APIKeySecurityScheme: ['description:d', 'location:r', 'name:r'],
    HTTPAuthSecurityScheme: ['description:d', 'scheme:r', 'bearerFormat:d'],
    OAuth2SecurityScheme: ['description:d', 'flows:r:OAuthFlows', 'oauth2MetadataUrl:d'],
    OAuthFlows: ['authorizationCode:o:AuthorizationCodeOAuthFlow', 'clientCredentials:o:ClientCredentialsOAuthFlow', 'implicit:o:ImplicitOAuthFlow', 'password:o:PasswordOAuthFlow', 'deviceCode:o:DeviceCodeOAuthFlow'],
    AuthorizationCodeOAuthFlow: ['authorizationUrl:r', 'tokenUrl:r', 'refreshUrl:d', 'scopes:rm', 'pkceRequired:d'],
    ClientCredentialsOAuthFlow: ['tokenUrl:r', 'refreshUrl:d', 'scopes:rm'],
    ImplicitOAuthFlow: ['authorizationUrl:d', 'refreshUrl:d', 'scopes:dm'],
    PasswordOAuthFlow: ['tokenUrl:d', 'refreshUrl:d', 'scopes:dm'],
    DeviceCodeOAuthFlow: ['deviceAuthorizationUrl:r', 'tokenUrl:r', 'refreshUrl:d', 'scopes:rm'],
    OpenIdConnectSecurityScheme: ['description:d', 'openIdConnectUrl:r'],
    MutualTlsSecurityScheme: ['description:d'],
    SecurityRequirement: ['schemes:dm:StringList'],
    StringList: ['list:d'],
    AgentSkill: ['id:r', 'name:r', 'description:r', 'tags:r', 'examples:d', 'inputModes:d', 'outputModes:d', 'securityRequirements:d:SecurityRequirement'],
    AgentCardSignature: ['protected:r', 'signature:r', 'header:d:*'],
  },
};
