package io.seckill.paysim;

import io.seckill.cli.Secrets;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code seckill paysim}: the payment channel simulator as a process of its own. */
@Command(
        name = "paysim",
        mixinStandardHelpOptions = true,
        description = "Run the payment channel simulator (create, query, close, refund, statement, signed callbacks).")
public final class PaySimCommand implements Callable<Integer> {

    @Option(names = "--port", description = "listen port on 127.0.0.1 (default ${DEFAULT-VALUE})")
    int port = 8091;

    @Option(
            names = "--secret-file",
            description =
                    "a file holding the callback HMAC secret, >= 32 characters (default: $SECKILL_PAYMENT_CALLBACK_SECRET)")
    Path secretFile;

    @Option(names = "--duplicate-callbacks", description = "callbacks sent per payment (default ${DEFAULT-VALUE})")
    int duplicateCallbacks = 1;

    @Option(names = "--callback-delay-ms", description = "delay before each callback (default ${DEFAULT-VALUE})")
    long callbackDelayMs = 0;

    @Option(names = "--pay-after-close", description = "take the money even when the payment was closed")
    boolean payAfterClose;

    @Option(
            names = "--query-failure-percent",
            description = "share of query/close calls answered 503 (default ${DEFAULT-VALUE})")
    int queryFailurePercent = 0;

    @Option(names = "--query-delay-ms", description = "delay of each query/close call (default ${DEFAULT-VALUE})")
    long queryDelayMs = 0;

    @Option(
            names = "--lost-callback-percent",
            description =
                    "share of paid payments that get no callback at all; only the statement shows them (default ${DEFAULT-VALUE})")
    int lostCallbackPercent = 0;

    @Override
    public Integer call() throws Exception {
        String secret;
        try {
            secret = Secrets.fromFileOr(secretFile, System.getenv("SECKILL_PAYMENT_CALLBACK_SECRET"), "--secret-file");
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            return 2;
        }
        if (secret == null || secret.length() < 32) {
            System.err.println(
                    "--secret-file: the callback secret is required (or $SECKILL_PAYMENT_CALLBACK_SECRET) and must be at "
                            + "least 32 characters");
            return 2;
        }
        PaySim sim = PaySim.start(port, secret);
        sim.knobs(new PaySim.Knobs(
                duplicateCallbacks,
                callbackDelayMs,
                payAfterClose,
                queryFailurePercent,
                queryDelayMs,
                lostCallbackPercent));
        System.out.println("paysim listening on " + sim.url());
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            sim.close();
            stop.countDown();
        }));
        stop.await();
        return 0;
    }
}
