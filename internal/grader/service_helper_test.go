package grader

import (
	"context"
	"log/slog"

	"github.com/faultline-dev/faultline/internal/grading"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

// Service is the parent's grading service (internal/grading) as this
// package's tests of the sandboxed child drive it: refund jobs, with the
// scenario order the grader's plans give the parent in the server.
type Service struct {
	*grading.Service
	pool *sandbox.Pool
}

// NewService grades through pool, as the server does.
func NewService(pool *sandbox.Pool, log *slog.Logger) *Service {
	return &Service{Service: grading.New(pool, log), pool: pool}
}

// NewChildRunner starts the server binary's grading child.
func NewChildRunner(limits sandbox.Limits, log *slog.Logger) *sandbox.Runner {
	return grading.NewChildRunner(limits, log)
}

// Grade grades job in a child admitted now.
func (s *Service) Grade(ctx context.Context, job Job, progress func(ScenarioReport)) (*Report, error) {
	return s.GradeRefund(ctx, nil, job, scenarioNames(job), progress)
}

// grade is Grade that also returns how the child ended.
func (s *Service) grade(ctx context.Context, ticket *sandbox.Ticket, job Job, progress func(ScenarioReport)) (*Report, *sandbox.Outcome, error) {
	return s.GradeRefundOutcome(ctx, ticket, job, scenarioNames(job), progress)
}

// scenarioNames is the order of job's scenarios, as the parent knows it
// from the content.
func scenarioNames(job Job) []string {
	suite, err := suiteOf(job)
	if err != nil {
		return nil
	}
	scenarios, err := selectScenarios(suite, job.Scenarios)
	if err != nil {
		return nil
	}
	var names []string
	for _, sc := range scenarios {
		names = append(names, sc.Name)
	}
	return names
}
