package bytesize

import "testing"

func TestFormat(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0 B"},
		{1023, "1023 B"},
		{1 << 10, "1 KiB"},
		{64 << 10, "64 KiB"},
		{768 << 20, "768 MiB"},
		{1<<30 + 1<<20, "1025 MiB"}, // not a whole number of GiB
		{2 << 30, "2 GiB"},
	}
	for _, tt := range tests {
		if got := Format(tt.n); got != tt.want {
			t.Errorf("Format(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
