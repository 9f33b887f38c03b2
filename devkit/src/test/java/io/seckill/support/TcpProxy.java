package io.seckill.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * A TCP relay on loopback in front of a real server, for network faults the server cannot stage itself.
 * {@link #partition()} makes every connection silent - bytes are neither delivered nor refused, as when
 * packets are dropped - and {@link #heal()} lets connections made since the partition through; the ones
 * open when it began stay silent for good, as connections to a primary that a failover left behind.
 */
public final class TcpProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final InetSocketAddress target;
    /** Connections made before the partition with this number stay silent. */
    private volatile int epoch;

    private volatile boolean open = true;

    /** A relay on a free loopback port to {@code host:port}. */
    public TcpProxy(String host, int port) throws IOException {
        this(InetAddress.getLoopbackAddress(), 0, host, port);
    }

    /** A relay listening on {@code listenAddress:listenPort} to {@code host:port}. */
    public TcpProxy(InetAddress listenAddress, int listenPort, String host, int port) throws IOException {
        this.target = new InetSocketAddress(host, port);
        this.listener = new ServerSocket(listenPort, 200, listenAddress);
        Thread.ofPlatform().name("tcp-proxy-accept").daemon().start(this::acceptLoop);
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** Every connection silent from now on; the ones open now stay so after {@link #heal()}. */
    public void partition() {
        epoch++;
        open = false;
    }

    /** Connections made since the partition are relayed. */
    public void heal() {
        open = true;
    }

    @Override
    public void close() throws IOException {
        listener.close();
    }

    private boolean live(int connectionEpoch) {
        return open && connectionEpoch == epoch;
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                int mine = epoch;
                Thread.ofPlatform().daemon().start(() -> connect(client, mine));
            } catch (IOException e) {
                if (!listener.isClosed()) {
                    throw new IllegalStateException("tcp proxy stopped accepting", e);
                }
            }
        }
    }

    private void connect(Socket client, int mine) {
        try {
            awaitLive(mine);
            Socket server = new Socket();
            server.connect(target, 5_000);
            Thread.ofPlatform().daemon().start(() -> pump(client, server, mine));
            pump(server, client, mine);
        } catch (IOException | InterruptedException e) {
            closeQuietly(client);
        }
    }

    /** Relays {@code from} to {@code to}; a chunk read while the connection is silent is held, for good if it stays so. */
    private void pump(Socket from, Socket to, int mine) {
        byte[] buf = new byte[16 * 1024];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                awaitLive(mine);
                out.write(Arrays.copyOf(buf, n));
                out.flush();
            }
            // a close is news that travels too: past a partition the other side never hears of it
            awaitLive(mine);
        } catch (IOException | InterruptedException e) {
            // one side closed: the other goes too, as a relayed connection would
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private void awaitLive(int mine) throws InterruptedException {
        while (!live(mine)) {
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing a relay end that is already gone
        }
    }
}
