package problems

import (
	"maps"
	"testing/fstest"
)

// goodProblem exercises every section a problem may have. Line numbers in
// the tests refer to this text: keep them in step when editing it.
const goodProblem = `---
slug: refund-demo
title: Debug a refund
summary: Find what is wrong.
difficulty: medium
minutes: 30
tags:
  topics: [idempotency, payments]
  companies: [Acme]
  roles: [Backend engineer]
source: Written for the tests.
timed_answer: 2m
code:
  language: go
  starter: starter/refund.go
  reference: reference/refund.go
  grader: refund
---
The function below refunds a payment. Find what is wrong.

` + "```go" + `
func refund() error { return nil }
` + "```" + `

## Clarifying questions

- Is the provider call idempotent?
- What does *done* mean?

## Part 1: Find the defects

List every defect you can see.

### Hints

1. Look at the loop.
2. Look at what happens after it.

### What this part should cover

- The swallowed errors.
- Marking done after failure.

## Part 2 — Make it safe

Rewrite it so a retry cannot refund twice.

### Constraints

Keep the signature.

### Hints

- Use an idempotency key.

## Facts about the provider

The provider replays the first response for a key.

## What a strong answer covers

- Ranks the defects by harm.

## Follow-up questions

- How would you reconcile?

## Where answers go wrong

- Retrying every error.

## Glossary

- **Idempotency key**: a value that makes a repeat safe.
- **Lease:** how long a claim holds.

## How to answer

Start with the money.

## Model answer

The loop swallows errors.
`

const goodSet = `---
slug: quick
title: Quick questions
minutes: 10
tags:
  topics: [llm]
---
Answer each in two minutes.

## What is an idempotency key?

### Model answer

A value that makes a repeat of a request safe.

### Key points

- Same key on every retry.
- Provider replays the first result.

### Time limit

90s

## Tell me about a project you led.

Think of one you owned end to end.

### Guidance

Pick one with a hard trade-off.

### Key points

- Names the trade-off.
`

const goodScreen = `---
slug: demo-screen
title: Demo screen
items:
  - problem: refund-demo
    minutes: 30
    note: Watch for the idempotency key.
  - questions: quick
---
Run the problem first, then the questions.
`

// goodFixture is a content root that loads with no diagnostics.
func goodFixture() fstest.MapFS {
	return fstest.MapFS{
		"problems/refund-demo/problem.md":          {Data: []byte(goodProblem)},
		"problems/refund-demo/starter/refund.go":   {Data: []byte("package refund\n\nfunc Refund() {}\n")},
		"problems/refund-demo/reference/refund.go": {Data: []byte("package refund\n\nfunc Refund() { _ = 1 }\n")},
		"problems/refund-demo/scenarios.yaml":      {Data: []byte("kit: refund\nscenarios: []\n")},
		"sets/quick.md":                            {Data: []byte(goodSet)},
		"screens/demo-screen.md":                   {Data: []byte(goodScreen)},
	}
}

// fixtureWith returns the good fixture with some files replaced (a nil
// file is removed).
func fixtureWith(changes map[string]*fstest.MapFile) fstest.MapFS {
	fsys := goodFixture()
	maps.Copy(fsys, changes)
	for name, f := range changes {
		if f == nil {
			delete(fsys, name)
		}
	}
	return fsys
}
