"""OAuth sign-in to HTTP MCP servers, on the SDK's ``OAuthClientProvider``.

- ``provider``: the SDK's provider as agent-tui extends it (its private overrides are listed in
  ``agent_tui.private_members``), and where a server's tokens are;
- ``connection_auth``: what a normal connection uses (never an interactive sign-in), and
  whether a connection failed for want of sign-in;
- ``oauth``: the sign-in the user asks for (``login``, its loopback redirect) and ``logout``;
- ``grants``: the grants that need no browser (client credentials, workload identity's JWT
  bearer, enterprise-managed authorization), on the SDK's extension providers;
  ``assertions``: what they present (JWT files, a private key, the identity provider's
  token exchange);
- ``dpop``: DPoP (``"dpop": true``): tokens bound to a key of agent-tui's, a proof on every
  request, around any of the providers (the SDK has no DPoP);
- ``token_store``: the tokens and client registration of each server, on disk (mode 0600).

May import ``core.mcp.config`` and the core's state; never ``core.mcp.client`` or
``core.mcp.server``.
"""
