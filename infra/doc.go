// Package infra holds the Terraform that deploys foldcorpus on Google Cloud
// (*.tf in this folder; docs/deploy.md walks through it). It has no Go code:
// its tests read the Terraform with HCL and check the deployment's
// invariants offline (region pinning, subscription policies, least
// privilege, function sizing, the functions' environment), and that
// cloudbuild.yaml runs the same test commands as .ci/run.
package infra
