/** The dev kit around the server: embedded engines, the payment simulator, the demo and the bench. */
package io.seckill.devkit;
