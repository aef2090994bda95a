package clientaddr

import (
	"crypto/tls"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		list    string
		want    []string
		wantErr string
	}{
		{list: "", want: nil},
		{list: "10.0.0.1", want: []string{"10.0.0.1/32"}},
		{list: "10.0.0.1, 192.168.7.9/16 ::1", want: []string{"10.0.0.1/32", "192.168.0.0/16", "::1/128"}},
		{list: "::ffff:10.0.0.1", want: []string{"10.0.0.1/32"}},
		{list: "10.0.0.1,,", want: []string{"10.0.0.1/32"}},
		{list: "10.0.0.1, proxy.internal", wantErr: `trusted proxy "proxy.internal"`},
		{list: "10.0.0.0/33", wantErr: `trusted proxy "10.0.0.0/33"`},
	}
	for _, tt := range tests {
		t.Run(tt.list, func(t *testing.T) {
			r, err := Parse(tt.list)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse(%q) error = %v, want one naming %s", tt.list, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range r.Trusted() {
				got = append(got, p.String())
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Fatalf("Parse(%q) = %v, want %v", tt.list, got, tt.want)
			}
		})
	}
}

func TestClient(t *testing.T) {
	tests := []struct {
		name    string
		trusted string
		peer    string
		xff     []string
		want    string
	}{
		{name: "no proxies: the peer", trusted: "", peer: "203.0.113.5:4000", want: "203.0.113.5"},
		{name: "spoofed header from an untrusted peer is ignored", trusted: "10.0.0.1", peer: "203.0.113.5:4000",
			xff: []string{"198.51.100.7"}, want: "203.0.113.5"},
		{name: "spoofed header with no proxies configured", trusted: "", peer: "127.0.0.1:4000",
			xff: []string{"198.51.100.7"}, want: "127.0.0.1"},
		{name: "trusted proxy: the address it saw", trusted: "10.0.0.1", peer: "10.0.0.1:4000",
			xff: []string{"198.51.100.7"}, want: "198.51.100.7"},
		{name: "client-written entries left of the proxy's are not believed", trusted: "10.0.0.1", peer: "10.0.0.1:4000",
			xff: []string{"1.1.1.1, 198.51.100.7"}, want: "198.51.100.7"},
		{name: "a chain of trusted proxies is walked", trusted: "10.0.0.0/8", peer: "10.0.0.1:4000",
			xff: []string{"1.1.1.1, 198.51.100.7, 10.2.3.4"}, want: "198.51.100.7"},
		{name: "repeated headers are one list", trusted: "10.0.0.0/8", peer: "10.0.0.1:4000",
			xff: []string{"1.1.1.1", "198.51.100.7", "10.2.3.4"}, want: "198.51.100.7"},
		{name: "trusted proxy without the header: the proxy", trusted: "10.0.0.1", peer: "10.0.0.1:4000", want: "10.0.0.1"},
		{name: "malformed entry stops at the last trusted hop", trusted: "10.0.0.0/8", peer: "10.0.0.1:4000",
			xff: []string{"not-an-ip, 10.2.3.4"}, want: "10.2.3.4"},
		{name: "entries with ports", trusted: "10.0.0.1", peer: "10.0.0.1:4000",
			xff: []string{"[2001:db8::1]:443"}, want: "2001:db8::1"},
		{name: "IPv6 peer", trusted: "", peer: "[2001:db8::5]:4000", want: "2001:db8::5"},
		{name: "IPv4-mapped peer is IPv4", trusted: "", peer: "[::ffff:198.51.100.7]:4000", want: "198.51.100.7"},
		{name: "unreadable peer", trusted: "", peer: "pipe", want: "invalid IP"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Parse(tt.trusted)
			if err != nil {
				t.Fatal(err)
			}
			req := httptest.NewRequest("GET", "/", nil)
			req.RemoteAddr = tt.peer
			for _, v := range tt.xff {
				req.Header.Add("X-Forwarded-For", v)
			}
			if got := r.Client(req).String(); got != tt.want {
				t.Fatalf("Client = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestTLS(t *testing.T) {
	tests := []struct {
		name    string
		trusted string
		peer    string
		tls     bool
		proto   []string
		want    bool
	}{
		{name: "plain", peer: "203.0.113.5:1", want: false},
		{name: "direct TLS", peer: "203.0.113.5:1", tls: true, want: true},
		{name: "header from an untrusted peer", peer: "203.0.113.5:1", proto: []string{"https"}, want: false},
		{name: "trusted proxy says https", trusted: "10.0.0.1", peer: "10.0.0.1:1", proto: []string{"https"}, want: true},
		{name: "trusted proxy says http", trusted: "10.0.0.1", peer: "10.0.0.1:1", proto: []string{"http"}, want: false},
		{name: "the nearest proxy's word counts", trusted: "10.0.0.1", peer: "10.0.0.1:1", proto: []string{"https, http"}, want: false},
		{name: "case does not matter", trusted: "10.0.0.1", peer: "10.0.0.1:1", proto: []string{"HTTPS"}, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Parse(tt.trusted)
			if err != nil {
				t.Fatal(err)
			}
			req := httptest.NewRequest("GET", "/", nil)
			req.RemoteAddr = tt.peer
			if tt.tls {
				req.TLS = &tls.ConnectionState{}
			}
			for _, v := range tt.proto {
				req.Header.Add("X-Forwarded-Proto", v)
			}
			if got := r.TLS(req); got != tt.want {
				t.Fatalf("TLS = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNilResolverTrustsNone(t *testing.T) {
	var r *Resolver
	req := httptest.NewRequest("GET", "/", nil)
	req.RemoteAddr = "10.0.0.1:1"
	req.Header.Set("X-Forwarded-For", "198.51.100.7")
	req.Header.Set("X-Forwarded-Proto", "https")
	if got := r.Client(req); got != netip.MustParseAddr("10.0.0.1") {
		t.Fatalf("Client = %s", got)
	}
	if r.TLS(req) {
		t.Fatal("TLS = true from an untrusted header")
	}
}

func TestKey(t *testing.T) {
	tests := []struct{ addr, want string }{
		{"198.51.100.7", "198.51.100.7"},
		{"::ffff:198.51.100.7", "198.51.100.7"},
		{"2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"},
		{"2001:db8:1:2:ffff::1", "2001:db8:1:2::/64"},
	}
	for _, tt := range tests {
		if got := Key(netip.MustParseAddr(tt.addr)); got != tt.want {
			t.Errorf("Key(%s) = %s, want %s", tt.addr, got, tt.want)
		}
	}
	if got := Key(netip.Addr{}); got != "unknown" {
		t.Errorf("Key(zero) = %s", got)
	}
}
