package api

import (
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestClientAddress(t *testing.T) {
	t.Parallel()
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	tests := []struct {
		name    string
		remote  string
		forward []string
		trusted []netip.Prefix
		want    string
	}{
		{name: "direct client", remote: "203.0.113.7:5555", want: "203.0.113.7"},
		{name: "forged header from an untrusted peer", remote: "203.0.113.7:5555", forward: []string{"1.2.3.4"}, trusted: proxies, want: "203.0.113.7"},
		{name: "headers ignored without trusted proxies", remote: "10.0.0.2:80", forward: []string{"1.2.3.4"}, want: "10.0.0.2"},
		{name: "one trusted proxy", remote: "10.0.0.2:80", forward: []string{"198.51.100.9"}, trusted: proxies, want: "198.51.100.9"},
		{name: "client prepends a forgery", remote: "10.0.0.2:80", forward: []string{"1.2.3.4, 198.51.100.9"}, trusted: proxies, want: "198.51.100.9"},
		{name: "chain of trusted proxies", remote: "10.0.0.2:80", forward: []string{"198.51.100.9, 10.0.0.5", "10.0.0.3"}, trusted: proxies, want: "198.51.100.9"},
		{name: "garbage hop stops the walk", remote: "10.0.0.2:80", forward: []string{"198.51.100.9, garbage"}, trusted: proxies, want: "10.0.0.2"},
		{name: "empty header", remote: "10.0.0.2:80", forward: []string{""}, trusted: proxies, want: "10.0.0.2"},
		{name: "ipv6 proxy", remote: "[::1]:80", forward: []string{"2001:db8::1"}, trusted: proxies, want: "2001:db8::1"},
		{name: "ipv4 hop with a port", remote: "10.0.0.2:80", forward: []string{"203.0.113.7:5555"}, trusted: proxies, want: "203.0.113.7"},
		{name: "ipv6 hop with a port", remote: "10.0.0.2:80", forward: []string{"[2001:db8::5]:443"}, trusted: proxies, want: "2001:db8::5"},
		{name: "bracketed ipv6 hop", remote: "10.0.0.2:80", forward: []string{"[2001:db8::6]"}, trusted: proxies, want: "2001:db8::6"},
		{name: "trusted hop with a port is walked past", remote: "10.0.0.2:80", forward: []string{"198.51.100.9:1234, 10.0.0.5:8080"}, trusted: proxies, want: "198.51.100.9"},
		{name: "hop with a bad port stops the walk", remote: "10.0.0.2:80", forward: []string{"198.51.100.9:99999"}, trusted: proxies, want: "10.0.0.2"},
		{name: "ipv4-mapped hop", remote: "10.0.0.2:80", forward: []string{"[::ffff:198.51.100.9]:80"}, trusted: proxies, want: "198.51.100.9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/api/auth/login", nil)
			r.RemoteAddr = tt.remote
			for _, v := range tt.forward {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := clientAddress(r, tt.trusted); got != tt.want {
				t.Errorf("clientAddress = %q, want %q", got, tt.want)
			}
		})
	}
}
