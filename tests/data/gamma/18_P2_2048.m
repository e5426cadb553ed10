Network 18_P2_2048 {
Layer L18 {
Type: CONV
Dimensions { K: 3072, C: 768, Y: 128, X: 1, R: 1, S: 1 }
Dataflow {
SpatialMap(1,1) K;
TemporalMap(287,287) C;
TemporalMap(49,49) Y';
TemporalMap(1,1) S;
TemporalMap(1,1) R;
TemporalMap(1,1) X';
Cluster(36,P);
TemporalMap(1,1) R;
TemporalMap(36,36) Y';
TemporalMap(1,1) X';
TemporalMap(1,1) S;
TemporalMap(1,1) K;
SpatialMap(1,1) C;
}
}
}
