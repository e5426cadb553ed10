Network 08_P2 {
Layer L08 {
Type: CONV
Dimensions { K: 256, C: 64, Y: 56, X: 56, R: 1, S: 1 }
Dataflow {
TemporalMap(33,33) X';
TemporalMap(1,1) R;
TemporalMap(1,1) S;
SpatialMap(4,4) C;
TemporalMap(4,4) Y';
TemporalMap(128,128) K;
Cluster(64,P);
TemporalMap(1,1) C;
TemporalMap(4,4) Y';
TemporalMap(1,1) R;
TemporalMap(1,1) S;
SpatialMap(1,1) K;
TemporalMap(8,8) X';
}
}
}
