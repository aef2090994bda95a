// Package clientaddr finds the address a request really came from, and
// whether it reached us over TLS, with the reverse proxies in front of the
// server taken into account only when the operator named them.
//
// X-Forwarded-For and X-Forwarded-Proto are written by whoever sends the
// request, so a client can claim any address in them. They are believed
// only from a peer the operator listed as a trusted proxy, and then only
// as far back as the chain of trusted proxies goes: the first address, from
// the right, that is not itself a trusted proxy is the client. With no
// proxies listed (the default) the headers are ignored and the client is
// the TCP peer.
package clientaddr

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Resolver answers Client and TLS for requests, given the trusted proxies.
// The zero value trusts no proxy. It is safe for concurrent use.
type Resolver struct {
	trusted []netip.Prefix
}

// Parse reads a list of trusted proxies: IP addresses or CIDR prefixes,
// separated by commas or spaces ("10.0.0.1, 192.168.0.0/16, ::1"). An
// empty list trusts none. The error names the entry it could not read.
func Parse(list string) (*Resolver, error) {
	r := &Resolver{}
	for _, f := range strings.FieldsFunc(list, func(c rune) bool { return c == ',' || c == ' ' || c == '\t' || c == '\n' }) {
		if strings.Contains(f, "/") {
			p, err := netip.ParsePrefix(f)
			if err != nil {
				return nil, fmt.Errorf("clientaddr: trusted proxy %q is not an address or CIDR prefix: %v", f, err)
			}
			r.trusted = append(r.trusted, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, fmt.Errorf("clientaddr: trusted proxy %q is not an address or CIDR prefix: %v", f, err)
		}
		a = a.Unmap()
		r.trusted = append(r.trusted, netip.PrefixFrom(a, a.BitLen()))
	}
	return r, nil
}

// Trusted reports the prefixes this resolver trusts, for logging.
func (r *Resolver) Trusted() []netip.Prefix {
	if r == nil {
		return nil
	}
	return append([]netip.Prefix(nil), r.trusted...)
}

func (r *Resolver) trusts(a netip.Addr) bool {
	if r == nil || !a.IsValid() {
		return false
	}
	a = a.Unmap()
	for _, p := range r.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Peer is the TCP peer's address (RemoteAddr), or the zero Addr when it
// cannot be read (a test request with a made-up RemoteAddr).
func Peer(req *http.Request) netip.Addr {
	host := req.RemoteAddr
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap().WithZone("")
}

// Client is the address the request came from: the TCP peer, or, when the
// peer is a trusted proxy, the nearest address in X-Forwarded-For that is
// not a trusted proxy. A malformed entry stops the walk at the last
// trusted hop: a proxy we trust wrote everything to its right, so an
// unreadable entry is the client's own doing.
func (r *Resolver) Client(req *http.Request) netip.Addr {
	addr := Peer(req)
	if !r.trusts(addr) {
		return addr
	}
	hops := forwardedFor(req.Header)
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(hops[i])
		if err != nil {
			return addr
		}
		addr = a.Unmap().WithZone("")
		if !r.trusts(addr) {
			return addr
		}
	}
	return addr
}

// TLS reports whether the client's connection was encrypted: it reached
// us over TLS, or a trusted proxy says so in X-Forwarded-Proto.
func (r *Resolver) TLS(req *http.Request) bool {
	if req.TLS != nil {
		return true
	}
	if !r.trusts(Peer(req)) {
		return false
	}
	// The nearest proxy's word is the one that counts: the last value.
	protos := splitList(req.Header.Values("X-Forwarded-Proto"))
	return len(protos) > 0 && strings.EqualFold(protos[len(protos)-1], "https")
}

// forwardedFor lists X-Forwarded-For's entries in order, across repeated
// headers, each trimmed; "[::1]:80" and "1.2.3.4:80" lose their port.
func forwardedFor(h http.Header) []string {
	hops := splitList(h.Values("X-Forwarded-For"))
	for i, hop := range hops {
		if host, _, err := net.SplitHostPort(hop); err == nil {
			hops[i] = host
		}
	}
	return hops
}

func splitList(values []string) []string {
	var out []string
	for _, v := range values {
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f != "" {
				out = append(out, f)
			}
		}
	}
	return out
}

// Key is the string a per-address limit counts under: an IPv4 address as
// it is, and an IPv6 address by its /64, since one subscriber is usually
// handed a whole /64 and could otherwise take a fresh address per request.
// The zero Addr has the key "unknown".
func Key(a netip.Addr) string {
	if !a.IsValid() {
		return "unknown"
	}
	a = a.Unmap()
	if a.Is4() {
		return a.String()
	}
	p, _ := a.WithZone("").Prefix(64)
	return p.String()
}
