/**
 * The operator's runbook as code, one class per operation: inspect any business id across every
 * source ({@link io.seckill.runbook.Inspection}), freeze and release
 * ({@link io.seckill.runbook.Freezes}), repair through a standard action
 * ({@link io.seckill.runbook.ManualRepairs}), change stock ({@link io.seckill.runbook.StockChange}),
 * close a sale out ({@link io.seckill.runbook.CloseOut}) and check the invariants
 * ({@link io.seckill.runbook.InvariantsReport}). Every manual action writes an audit row.
 */
package io.seckill.runbook;
