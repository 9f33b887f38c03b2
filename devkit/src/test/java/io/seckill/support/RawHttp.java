package io.seckill.support;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/** HTTP/1.1 written and read by hand on a socket: pipelining, partial requests, resets - what a client library hides. */
public final class RawHttp {

    private RawHttp() {}

    public static String reservePath(long activityId) {
        return "/api/v1/activities/" + activityId + "/skus/1/reservations";
    }

    public static String request(String path, String authorization, String body) {
        return "POST " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: " + authorization
                + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body;
    }

    /** A reserve call with a token no decoder accepts: either port answers it 401 before reading anything else. */
    public static final String UNAUTHENTICATED = request(reservePath(1), "Bearer not-a-token", "{}");

    /** A connection to a local port whose reads time out after {@code readTimeoutMs}. */
    public static Socket connect(int port, int readTimeoutMs) throws IOException {
        Socket s = new Socket("127.0.0.1", port);
        s.setSoTimeout(readTimeoutMs);
        return s;
    }

    /** As {@link #connect(int, int)}, from the loopback address {@code local} (127.0.0.2, say): another client. */
    public static Socket connectFrom(String local, int port, int readTimeoutMs) throws IOException {
        Socket s = new Socket();
        s.bind(new java.net.InetSocketAddress(local, 0));
        s.connect(new java.net.InetSocketAddress("127.0.0.1", port), 5_000);
        s.setSoTimeout(readTimeoutMs);
        return s;
    }

    /** Writes {@code text} on the connection at once. */
    public static void send(Socket s, String text) throws IOException {
        s.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
    }

    /**
     * The head of a payment callback (a path that needs no token) announcing a body of {@code length}
     * bytes, with the body's first byte.
     */
    public static String callbackStart(int length) {
        return "POST /api/v1/payments/callbacks/paysim HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + length + "\r\n\r\n{";
    }

    /** {@code n} connections, each having sent {@link #callbackStart} and nothing more yet. */
    public static java.util.List<Socket> startedCallbacks(int port, int n, int length) throws IOException {
        java.util.List<Socket> out = new java.util.ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Socket s = connect(port, 20_000);
            out.add(s);
            send(s, callbackStart(length));
        }
        return out;
    }

    /** Sends {@link #UNAUTHENTICATED} on the connection: the status of its answer. */
    public static int askUnauthenticated(Socket s) throws IOException {
        s.getOutputStream().write(UNAUTHENTICATED.getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        return status(reader(s));
    }

    public static DataInputStream reader(Socket s) throws IOException {
        return new DataInputStream(new BufferedInputStream(s.getInputStream()));
    }

    /** The status of the next response on the connection; its headers and body are read past. */
    public static int status(DataInputStream in) throws IOException {
        int status = Integer.parseInt(line(in).split(" ")[1]);
        int length = 0;
        for (String h = line(in); !h.isEmpty(); h = line(in)) {
            if (h.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(h.substring(15).strip());
            }
        }
        in.readFully(new byte[length]);
        return status;
    }

    private static String line(DataInputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new EOFException("connection closed after " + b);
            }
            if (c != '\r') {
                b.append((char) c);
            }
        }
        return b.toString();
    }

    /** Whether the server closed the connection (end of stream or a reset) within the socket's read timeout. */
    public static boolean closedByServer(Socket s) {
        try {
            return s.getInputStream().read() == -1;
        } catch (java.net.SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }
}
