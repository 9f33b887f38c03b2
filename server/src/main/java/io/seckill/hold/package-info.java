/**
 * Manual holds and the audit log: what a person took out of automation, and what every person
 * did. A leaf package: workers consult holds, the runbook writes them.
 */
package io.seckill.hold;
