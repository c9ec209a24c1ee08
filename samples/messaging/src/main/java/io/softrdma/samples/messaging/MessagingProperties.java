package io.softrdma.samples.messaging;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * The sample's settings ({@code messaging.*}).
 *
 * @param messageSize the size of each message (at least 8: a sequence number, then padding)
 * @param consumeDelay how long the consumer spends on each message: what makes it slow
 * @param messages how many messages the producer sends; 0 for as long as it runs
 */
@ConfigurationProperties("messaging")
public record MessagingProperties(DataSize messageSize, Duration consumeDelay, long messages) {
    public MessagingProperties {
        messageSize = messageSize == null ? DataSize.ofBytes(1024) : messageSize;
        consumeDelay = consumeDelay == null ? Duration.ofMillis(2) : consumeDelay;
        if (messageSize.toBytes() < 8) {
            throw new IllegalArgumentException("messaging.message-size must be at least 8 bytes (the sequence number),"
                    + " not " + messageSize);
        }
    }
}
