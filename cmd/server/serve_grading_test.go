package main

import (
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/web"
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

func TestParseServeLimits(t *testing.T) {
	type limits struct {
		perAddress, identities int
		every                  time.Duration
	}
	defaults := limits{web.DefaultGradesPerAddress, defaultNewIdentities, defaultNewIdentityEvery}
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    limits
		wantErr string
	}{
		{"defaults", nil, nil, defaults, ""},
		{"environment", nil, map[string]string{"FAULTLINE_GRADES_PER_ADDRESS": "5", "FAULTLINE_NEW_IDENTITIES": "10", "FAULTLINE_NEW_IDENTITY_EVERY": "1m"},
			limits{5, 10, time.Minute}, ""},
		{"flags beat environment", []string{"-grades-per-address", "1", "-new-identities", "0", "-new-identity-every", "5s"},
			map[string]string{"FAULTLINE_GRADES_PER_ADDRESS": "5", "FAULTLINE_NEW_IDENTITIES": "10"}, limits{1, 0, 5 * time.Second}, ""},
		{"no gradings per address", []string{"-grades-per-address", "0"}, nil, limits{}, "-grades-per-address 0: want 1 or more"},
		{"negative identities", []string{"-new-identities", "-1"}, nil, limits{}, "want 0 (no limit) or more"},
		{"bad environment number", nil, map[string]string{"FAULTLINE_GRADES_PER_ADDRESS": "two"}, limits{}, `"two" (from the environment): want a whole number`},
		{"bad environment duration", nil, map[string]string{"FAULTLINE_NEW_IDENTITY_EVERY": "often"}, limits{}, `FAULTLINE_NEW_IDENTITY_EVERY="often"`},
		{"zero interval", []string{"-new-identity-every", "0s"}, nil, limits{}, "want a positive duration"},
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
			if got := (limits{cfg.GradesPerAddress, cfg.NewIdentities, cfg.NewIdentityEvery}); got != tt.want {
				t.Errorf("limits = %+v; want %+v", got, tt.want)
			}
		})
	}
}
