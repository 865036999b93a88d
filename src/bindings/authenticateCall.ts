/**
 * SEC-02 on every binding, in one place: the request's credentials checked against the card's
 * requirements (the HTTP bindings through BindingContext, gRPC through its call context), the
 * principal put into the CallContext (with `authChecked`), and failed authentications charged to the remote
 * address's request budget (SEC-06, AbuseLimits.guardAuthentication): once it is spent, the
 * answer is RESOURCE_EXHAUSTED and no more credentials are evaluated.
 */
import type { AuthInput, Authenticator } from '../auth/authConfig.js';
import type { AbuseLimits } from '../server/abuseLimits.js';
import type { CallObserver } from '../server/callObserver.js';
import type { CallContext } from '../server/requestHandler.js';

export async function authenticateCall(call: {
  authenticator: Authenticator;
  /**
   * The handler's abuse limits (undefined: none configured, or a handler without them), and its
   * call observer: with an `onCall` hook, the call is timed from here and a refusal is its end.
   */
  handler: { readonly abuseLimits?: AbuseLimits | undefined; readonly calls?: CallObserver | undefined };
  input: AuthInput;
  ctx: CallContext;
}): Promise<void> {
  const calls = call.handler.calls;
  if (calls === undefined) return check(call);
  return calls.authenticate(call.input.operation, call.ctx, () => check(call));
}

async function check(call: Parameters<typeof authenticateCall>[0]): Promise<void> {
  const { authenticator, input, ctx } = call;
  const limits = call.handler.abuseLimits;
  const principal = limits ? await limits.guardAuthentication(ctx, () => authenticator.authenticate(input)) : await authenticator.authenticate(input);
  if (principal) ctx.principal = principal;
  ctx.authChecked = true;
}
