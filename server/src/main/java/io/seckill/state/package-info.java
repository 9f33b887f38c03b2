/**
 * The design's state machines: one enum per status column, and the moves each state may make in one
 * table ({@link io.seckill.state.Transitions}). A leaf package: every feature may use it, it uses none
 * of them.
 */
package io.seckill.state;
