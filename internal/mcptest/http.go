package mcptest

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bearer sends each request with "Authorization: Bearer Token" through
// Base (http.DefaultTransport when nil).
type Bearer struct {
	Token string
	Base  http.RoundTripper
}

// RoundTrip sends r with the token.
func (b Bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.Token)
	base := b.Base
	if base == nil {
		base = http.DefaultTransport
	}
	return base.RoundTrip(r)
}

// ConnectHTTP connects an MCP client (with opts) to the Streamable HTTP
// endpoint url+"/mcp" with the bearer token, never retrying a request.
func ConnectHTTP(ctx context.Context, url, token string, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	tr := &mcp.StreamableClientTransport{Endpoint: url + "/mcp", HTTPClient: &http.Client{Transport: Bearer{Token: token}}, MaxRetries: -1}
	return mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v0"}, opts).Connect(ctx, tr, nil)
}
