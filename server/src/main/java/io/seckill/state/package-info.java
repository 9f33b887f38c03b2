/**
 * The design's state machines, one enum per status column, each state naming the states it may
 * move to. A leaf package: every feature may use it, it uses none of them.
 */
package io.seckill.state;
