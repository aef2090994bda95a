package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

func TestParseServeRoomRetention(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    time.Duration
		wantErr string
	}{
		{"default: a month", nil, nil, 30 * 24 * time.Hour, ""},
		{"environment", nil, map[string]string{"FAULTLINE_ROOM_RETENTION": "168h"}, 7 * 24 * time.Hour, ""},
		{"flag beats environment", []string{"-room-retention", "1h"}, map[string]string{"FAULTLINE_ROOM_RETENTION": "168h"}, time.Hour, ""},
		{"zero", []string{"-room-retention", "0s"}, nil, 0, "-room-retention 0s: want a positive duration"},
		{"bad environment", nil, map[string]string{"FAULTLINE_ROOM_RETENTION": "a month"}, 0, `FAULTLINE_ROOM_RETENTION="a month": want a positive duration`},
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
			if cfg.RoomRetention != tt.want {
				t.Errorf("RoomRetention = %s; want %s", cfg.RoomRetention, tt.want)
			}
		})
	}
}
