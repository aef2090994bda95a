// Package grader holds nothing but the path of the refund harness,
// internal/grader/refundkit, which refund submissions import: users'
// drafts and history store that import path, so the harness keeps it.
// The refund grader that lived here is now the refund kit
// (internal/kits/refund) on the problem-agnostic engine
// (internal/faultsim); its proof tests, corpus and mutation tooling moved
// to internal/kits/refund and internal/mutation.
package grader
