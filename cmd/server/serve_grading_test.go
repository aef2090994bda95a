package main

import (
	"io"
	"runtime"
	"strings"
	"testing"
)

func TestParseServeGraders(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    int
		wantErr string
	}{
		{"default: one per CPU", nil, nil, runtime.NumCPU(), ""},
		{"environment", nil, map[string]string{"FAULTLINE_GRADERS": "3"}, 3, ""},
		{"zero turns grading off", []string{"-graders", "0"}, nil, 0, ""},
		{"flag beats environment", []string{"-graders", "1"}, map[string]string{"FAULTLINE_GRADERS": "4"}, 1, ""},
		{"negative flag", []string{"-graders", "-1"}, nil, 0, "want 0 (grading off) or more"},
		{"bad environment", nil, map[string]string{"FAULTLINE_GRADERS": "many"}, 0, `FAULTLINE_GRADERS="many"`},
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
			if cfg.Graders != tt.want {
				t.Errorf("Graders = %d; want %d", cfg.Graders, tt.want)
			}
		})
	}
}
