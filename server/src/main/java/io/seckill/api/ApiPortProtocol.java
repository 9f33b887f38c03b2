package io.seckill.api;

import java.util.Set;
import org.apache.coyote.http11.Http11NioProtocol;
import org.apache.tomcat.util.net.NioChannel;
import org.apache.tomcat.util.net.SocketWrapperBase;

/**
 * The API port's HTTP/1.1 connector: Tomcat's NIO protocol, with its open connections visible to
 * {@link HeaderDeadline}. Tomcat creates it by class name, hence public with a no-argument constructor.
 */
public class ApiPortProtocol extends Http11NioProtocol {

    /** The connections open now; a live view, safe to iterate while Tomcat adds and removes. */
    Set<SocketWrapperBase<NioChannel>> connections() {
        return getEndpoint().getConnections();
    }
}
