// Uniqueness constraints and lookup indexes. Idempotent; runs on Neo4j 5 and ArcadeDB alike.
CREATE CONSTRAINT guild_id IF NOT EXISTS FOR (n:Guild) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT channel_id IF NOT EXISTS FOR (n:Channel) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT user_id IF NOT EXISTS FOR (n:User) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT message_id IF NOT EXISTS FOR (n:Message) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT entity_uuid IF NOT EXISTS FOR (n:Entity) REQUIRE n.uuid IS UNIQUE;
CREATE CONSTRAINT episode_uuid IF NOT EXISTS FOR (n:Episode) REQUIRE n.uuid IS UNIQUE;
CREATE CONSTRAINT episode_key IF NOT EXISTS FOR (n:Episode) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT fact_uuid IF NOT EXISTS FOR (n:Fact) REQUIRE n.uuid IS UNIQUE;
CREATE CONSTRAINT graph_meta_key IF NOT EXISTS FOR (n:GraphMeta) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT opt_out_key IF NOT EXISTS FOR (n:OptOut) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT activity_day_key IF NOT EXISTS FOR (n:ActivityDay) REQUIRE n.key IS UNIQUE;
CREATE INDEX fact_guild IF NOT EXISTS FOR (n:Fact) ON (n.guild_id);
CREATE INDEX fact_retire_at IF NOT EXISTS FOR (n:Fact) ON (n.retire_at);
// Ranges of facts by when they were stored / closed: the cap pass's new facts (graph/user_cap.py), recent
// closings for the operator queries, and `memory status`'s recent activity, never a guild's whole history.
CREATE INDEX fact_created_at IF NOT EXISTS FOR (n:Fact) ON (n.created_at);
CREATE INDEX fact_expired_at IF NOT EXISTS FOR (n:Fact) ON (n.expired_at);
// One guild's facts by when they were stored / closed: '<guild id>|<10^15 + epoch millis>' (graph/guild_activity.py),
// for `memory status`. On ArcadeDB a string range costs the rows it holds; a datetime range costs the whole index.
CREATE INDEX fact_created_key IF NOT EXISTS FOR (n:Fact) ON (n.created_key);
CREATE INDEX fact_closed_key IF NOT EXISTS FOR (n:Fact) ON (n.closed_key);
CREATE INDEX user_name_lower IF NOT EXISTS FOR (n:User) ON (n.name_lower);
CREATE INDEX user_display_lower IF NOT EXISTS FOR (n:User) ON (n.display_lower);
CREATE INDEX entity_guild IF NOT EXISTS FOR (n:Entity) ON (n.guild_id);
CREATE INDEX entity_name_key IF NOT EXISTS FOR (n:Entity) ON (n.name_key);
CREATE INDEX message_channel IF NOT EXISTS FOR (n:Message) ON (n.channel_id);
CREATE INDEX message_guild IF NOT EXISTS FOR (n:Message) ON (n.guild_id);
CREATE INDEX message_buffered IF NOT EXISTS FOR (n:Message) ON (n.buffered);
// The replies to a message wherever they are (a thread answering its parent channel too), for its deletion.
CREATE INDEX message_reply_to IF NOT EXISTS FOR (n:Message) ON (n.reply_to_id);
// A channel's messages in time order: channel_time is '<channel id>|<10^15 + epoch millis>' (see
// graph/keys.py), one key whose range is a span of one channel's history (a composite index on
// (channel_id, created_at) is read by ArcadeDB only through its first key, the whole channel).
CREATE INDEX message_channel_time IF NOT EXISTS FOR (n:Message) ON (n.channel_time);
CREATE INDEX episode_channel IF NOT EXISTS FOR (n:Episode) ON (n.channel_id);
CREATE INDEX episode_guild IF NOT EXISTS FOR (n:Episode) ON (n.guild_id);
CREATE INDEX episode_status IF NOT EXISTS FOR (n:Episode) ON (n.status);
CREATE INDEX episode_reextract IF NOT EXISTS FOR (n:Episode) ON (n.reextract);
CREATE INDEX channel_guild IF NOT EXISTS FOR (n:Channel) ON (n.guild_id);
CREATE INDEX activity_day_guild IF NOT EXISTS FOR (n:ActivityDay) ON (n.guild_id);
