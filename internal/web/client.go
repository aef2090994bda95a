package web

import (
	"context"
	"net/netip"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/clientaddr"
)

// clientInfo is where a request came from, as the trusted proxies tell it.
type clientInfo struct {
	addr netip.Addr
	key  string // what per-address limits count under (clientaddr.Key)
	tls  bool   // the client's connection was encrypted, here or at a trusted proxy
}

type clientInfoKey struct{}

// locateClient attaches the client's address and TLS-ness to the request
// before anything else reads them: limits, cookies and headers all ask
// clientOf, never the request's headers.
func (s *Server) locateClient(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		addr := s.proxies.Client(req)
		info := clientInfo{addr: addr, key: clientaddr.Key(addr), tls: s.proxies.TLS(req)}
		c.SetRequest(req.WithContext(context.WithValue(req.Context(), clientInfoKey{}, info)))
		return next(c)
	}
}

// clientOf returns what locateClient found; a context without it (a unit
// test calling a handler directly) is the unknown, unencrypted client.
func clientOf(ctx context.Context) clientInfo {
	if info, ok := ctx.Value(clientInfoKey{}).(clientInfo); ok {
		return info
	}
	return clientInfo{key: clientaddr.Key(netip.Addr{})}
}
