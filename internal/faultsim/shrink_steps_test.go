package faultsim

import "testing"

// TestFirstSentence: a step tells the invariant's evidence in one
// sentence, keeping the citation that ends it.
func TestFirstSentence(t *testing.T) {
	for _, tc := range []struct{ ev, want string }{
		{"the provider holds 2 refunds for r1 (the page: \"No request is refunded twice\"; rules P1, P9).",
			"the provider holds 2 refunds for r1 (the page: \"No request is refunded twice\"; rules P1, P9)."},
		{"r1 was sent under 3 keys: k1 (#1 by worker-1); k2 (#2 by worker-1). A key marks one request (rule P1): a resend is a new refund (the page: \"One key\"; rules P1, P2).",
			"r1 was sent under 3 keys: k1 (#1 by worker-1); k2 (#2 by worker-1) (the page: \"One key\"; rules P1, P2)."},
		{"worker-1 returned done at +2.5s. Nothing was sent.", "worker-1 returned done at +2.5s."},
		{"no full stop at all", "no full stop at all"},
	} {
		if got := firstSentence(tc.ev); got != tc.want {
			t.Errorf("firstSentence(%q)\n got %q\nwant %q", tc.ev, got, tc.want)
		}
	}
}
