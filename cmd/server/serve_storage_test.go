package main

import (
	"io"
	"strings"
	"testing"
)

func TestParseServeWriteBudget(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    int
		wantErr string
	}{
		{"default", nil, nil, 512, ""},
		{"environment", nil, map[string]string{"FAULTLINE_WRITE_KIB_PER_SECOND": "2048"}, 2048, ""},
		{"flag beats environment", []string{"-write-kib-per-second", "0"}, map[string]string{"FAULTLINE_WRITE_KIB_PER_SECOND": "2048"}, 0, ""},
		{"negative", []string{"-write-kib-per-second", "-1"}, nil, 0, "-write-kib-per-second -1: want 0 (no limit) or more"},
		{"bad environment", nil, map[string]string{"FAULTLINE_WRITE_KIB_PER_SECOND": "lots"}, 0, `"lots" (from the environment): want a whole number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseServeFlags(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v; want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.WriteKiBPerSecond != tt.want {
				t.Errorf("WriteKiBPerSecond = %d; want %d", cfg.WriteKiBPerSecond, tt.want)
			}
		})
	}
}
